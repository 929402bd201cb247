// A local Ethereum node for the tests: Hardhat's node engine EDR (`@nomicfoundation/edr`, the Rust
// EVM behind `hardhat node`, prebuilt for each platform as an npm package: nothing downloaded at
// install or run time, no install script) running in this process, answering JSON-RPC over HTTP on
// 127.0.0.1 at a port the system picks. Blocks are mined as transactions arrive (automine), on the
// hardfork asked (Prague by default: legacy with EIP-155, EIP-2930, EIP-1559 and EIP-7702
// transactions), with the accounts asked prefunded in the genesis block. A transaction whose
// signature or chain id is wrong is refused by eth_sendRawTransaction, as a real node refuses it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import edr from '@nomicfoundation/edr';

export interface EvmNodeOptions {
  /** Default 31337, Hardhat's. */
  chainId?: number;
  /** An EDR hardfork name (edr.PRAGUE, the default, is 'Prague'; 'Cancun', 'Shanghai', 'London'… are read by l1HardforkFromString). */
  hardfork?: string;
  /** Accounts funded in the genesis block: 0x addresses and their balances in wei. */
  accounts?: Array<{ address: string; balance: bigint }>;
  /** The base fee of the first block, in wei (default 1 gwei). */
  initialBaseFeePerGas?: bigint;
}

export interface EvmNode {
  /** http://127.0.0.1:<port>, a JSON-RPC endpoint for viem's http() transport or any client. */
  url: string;
  chainId: number;
  hardfork: string;
  /** One JSON-RPC call through the HTTP endpoint; an error answer throws with its code and message. */
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Stops listening and closes the open connections. */
  close(): Promise<void>;
}

/** The largest JSON-RPC request body accepted (a transaction is at most 128 KiB, twice that in hex). */
const MAX_BODY_BYTES = 1 << 20;

let context: Promise<edr.EdrContext> | undefined;

/** EDR wants one context per process, with the L1 chain type registered once. */
function edrContext(): Promise<edr.EdrContext> {
  context ??= (async () => {
    const created = new edr.EdrContext();
    await created.registerProviderFactory(edr.L1_CHAIN_TYPE, edr.l1ProviderFactory());
    return created;
  })();
  return context;
}

export async function startEvmNode(options: EvmNodeOptions = {}): Promise<EvmNode> {
  const chainId = options.chainId ?? 31337;
  const hardfork = options.hardfork ?? edr.PRAGUE;
  const genesis = edr.l1GenesisState(edr.l1HardforkFromString(hardfork));
  for (const { address, balance } of options.accounts ?? []) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`not an address: ${address}`);
    genesis.push({ address: Buffer.from(address.slice(2), 'hex'), balance });
  }
  const provider = await (await edrContext()).createProvider(
    edr.L1_CHAIN_TYPE,
    {
      allowBlocksWithSameTimestamp: false,
      allowUnlimitedContractSize: false,
      bailOnCallFailure: false,
      bailOnTransactionFailure: false,
      chainId: BigInt(chainId),
      coinbase: Buffer.alloc(20),
      defaultTransactionGasLimit: 30_000_000n,
      genesisState: genesis,
      hardfork,
      initialBaseFeePerGas: options.initialBaseFeePerGas ?? 1_000_000_000n,
      minGasPrice: 0n,
      mining: { autoMine: true, memPool: { order: edr.MineOrdering.Priority } },
      network: { genesisBlockGasLimit: 30_000_000n },
      networkId: BigInt(chainId),
      observability: {},
      ownedAccounts: [],
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new edr.ContractDecoder(),
  );

  /** One call answered by EDR, with the jsonrpc and id it leaves out. */
  async function answer(call: unknown): Promise<unknown> {
    const id = typeof call === 'object' && call !== null && 'id' in call ? (call as { id: unknown }).id : null;
    // Clients leave params out of a call that has none (viem's eth_chainId); EDR wants it there.
    const complete = typeof call === 'object' && call !== null && !Array.isArray(call) && !('params' in call) ? { ...call, params: [] } : call;
    try {
      const response = await provider.handleRequest(JSON.stringify(complete));
      const data = typeof response.data === 'string' ? JSON.parse(response.data) : response.data;
      return { jsonrpc: '2.0', id, ...data };
    } catch (error) {
      return { jsonrpc: '2.0', id, error: { code: -32603, message: String((error as Error)?.message ?? error) } };
    }
  }

  const server = http.createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'POST') return reply(405, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC is POSTed' } });
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reply(413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `request larger than ${MAX_BODY_BYTES} bytes` } });
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (response.headersSent) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      }
      const answered = Array.isArray(body) ? Promise.all(body.map(answer)) : answer(body);
      answered.then((result) => reply(200, result), (error) => reply(500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: String(error) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let nextId = 1;

  return {
    url,
    chainId,
    hardfork,
    async request<T>(method: string, params: unknown[] = []): Promise<T> {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      });
      const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
      return body.result as T;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
