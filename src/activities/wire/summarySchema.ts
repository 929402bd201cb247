// A signing activity's summary in words on the wire (get_activity's `summary`, list_activities'
// `summaries`, the webhook event's `activity.summary`), as src/readable's ReadableSummary makes it.
// Declared here for the OpenAPI document by what every kind shares: its `kind`, its one-line `text`
// and whether it was cut; the fields of each kind are the interfaces of src/readable/summary.ts.
import { z } from 'zod';

export const summarySchema = z
  .object({
    kind: z
      .enum(['ethereum_transaction', 'solana_transaction', 'eip712'])
      .describe(
        'ethereum_transaction: chain {id, name}, from, to {address, label}, function {name, signature, arguments [{name, value}]}, value {amount, unit, wei}; ' +
          'solana_transaction: instructions [{program, label, name, arguments}], transfers [{from, to, sol, lamports}], splTransfers [{from, to, amount, tokenMint}]; ' +
          'eip712: primaryType, domain {name, version, chain, verifyingContract, label}, message [{name, value}]',
      ),
    text: z.string().describe('The summary in one line, e.g. "On Ethereum (chain 1) call transfer(to=0x…, value=1000000) on USDC (0x…) with 0 ETH"'),
    truncated: z.literal(true).optional().describe('Present when lists or text were cut to keep the summary within 16 KiB'),
  })
  .catchall(z.unknown())
  .meta({
    id: 'ReadableSummary',
    description:
      "What a signing activity signs, in words, decoded with the organization's smart contract interfaces (values at most 200 characters, the whole at most 16 KiB of JSON)",
  });
