// The create_smart_contract_interface handler: its parameter schema (required fields, unknown keys,
// the 400 KiB byte limit, interface and address rules per type) and the row the engine stores.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  createSmartContractInterface as handler,
  MAX_INTERFACE_BYTES,
} from '../src/activities/handlers/contracts/createSmartContractInterface.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/store/db.ts';
import { runActivity } from './support/activities.ts';
import { testDatabases } from './support/databases.ts';

const ETHEREUM = 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM';
const SOLANA = 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA';

const abi = [
  {
    type: 'function',
    name: 'transfer',
    inputs: [{ name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }],
    outputs: [{ name: '', type: 'bool' }],
    stateMutability: 'nonpayable',
  },
  {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
    anonymous: false,
  },
];

const idl = {
  version: '0.1.0',
  name: 'counter',
  instructions: [
    { name: 'increment', accounts: [{ name: 'counter', isMut: true, isSigner: false }], args: [{ name: 'by', type: 'u64' }] },
  ],
};

const ethereumAddress = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'; // an EIP-55 vector
const solanaAddress = 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS';

const ethereumParameters = (overrides: Record<string, unknown> = {}) => ({
  smartContractAddress: ethereumAddress,
  smartContractInterface: JSON.stringify(abi),
  type: ETHEREUM,
  label: 'Token',
  ...overrides,
});

const solanaParameters = (overrides: Record<string, unknown> = {}) => ({
  smartContractAddress: solanaAddress,
  smartContractInterface: JSON.stringify(idl),
  type: SOLANA,
  label: 'Counter program',
  ...overrides,
});

/** The issues of a rejected parameters object, as `path: message`. */
function issues(parameters: unknown): string[] {
  const parsed = handler.parameters.safeParse(parameters);
  assert.equal(parsed.success, false, 'expected the parameters to be rejected');
  return parsed.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

/**
 * A valid ABI whose text is exactly `bytes` bytes of UTF-8, padded inside a string with 4-, 3- and
 * 2-byte characters so that characters and bytes differ.
 */
function abiOfBytes(bytes: number): string {
  const withPadding = (padding: string) => JSON.stringify([{ ...abi[0], devdoc: padding }]);
  let remaining = bytes - Buffer.byteLength(withPadding(''));
  let padding = '😀'.repeat(Math.floor(remaining / 4) - 2);
  remaining -= Buffer.byteLength(padding);
  padding += '€'.repeat(Math.floor(remaining / 3));
  remaining -= 3 * Math.floor(remaining / 3);
  padding += 'é'.repeat(Math.floor(remaining / 2)) + 'a'.repeat(remaining % 2);
  const text = withPadding(padding);
  assert.equal(Buffer.byteLength(text), bytes);
  return text;
}

describe('create_smart_contract_interface parameters', () => {
  test('a valid Ethereum ABI and a valid Solana IDL pass; the intent echoes them', () => {
    const ethereum = ethereumParameters();
    assert.deepEqual(handler.parameters.parse(ethereum), ethereum);
    const solana = solanaParameters({ notes: 'deployed on devnet' });
    assert.deepEqual(handler.parameters.parse(solana), solana);
  });

  test('notes are optional and echoed only when given', () => {
    assert.equal('notes' in handler.parameters.parse(ethereumParameters()), false);
    assert.equal(handler.parameters.parse(ethereumParameters({ notes: '' })).notes, '');
    assert.equal(handler.parameters.parse(ethereumParameters({ notes: 'n'.repeat(4096) })).notes?.length, 4096);
    assert.deepEqual(issues(ethereumParameters({ notes: 'n'.repeat(4097) })), ['notes: must be at most 4096 characters']);
  });

  test('each required field missing is named', () => {
    for (const field of ['smartContractAddress', 'smartContractInterface', 'type', 'label']) {
      const { [field]: _, ...parameters } = ethereumParameters() as Record<string, unknown>;
      const parsed = handler.parameters.safeParse(parameters);
      assert.equal(parsed.success, false, field);
      const missing = parsed.error!.issues.filter((issue) => issue.path.join('.') === field);
      assert.equal(missing.length, 1, field);
      // Strings fail as invalid_type (the engine words it "required field is missing"); the enum words it itself.
      if (field === 'type') assert.match(missing[0]!.message, /^is required: SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM or /);
      else assert.equal(missing[0]!.code, 'invalid_type', field);
    }
  });

  test('an unknown field is rejected by name', () => {
    const parsed = handler.parameters.safeParse(ethereumParameters({ abi: '[]' }));
    assert.equal(parsed.success, false);
    assert.deepEqual(
      parsed.error!.issues.map((issue) => ({ code: issue.code, keys: (issue as { keys?: string[] }).keys })),
      [{ code: 'unrecognized_keys', keys: ['abi'] }],
    );
  });

  test('type is one of the two interface types', () => {
    assert.deepEqual(issues(ethereumParameters({ type: 'SMART_CONTRACT_INTERFACE_TYPE_BITCOIN' })), [
      'type: must be SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM or SMART_CONTRACT_INTERFACE_TYPE_SOLANA, got "SMART_CONTRACT_INTERFACE_TYPE_BITCOIN"',
    ]);
  });

  test('label is required text of at most 256 characters', () => {
    assert.equal(handler.parameters.parse(ethereumParameters({ label: 'L'.repeat(256) })).label.length, 256);
    assert.deepEqual(issues(ethereumParameters({ label: 'L'.repeat(257) })), ['label: must be at most 256 characters']);
    for (const label of ['', '   ']) {
      assert.deepEqual(issues(ethereumParameters({ label })), ['label: must not be empty or only spaces: it is the human-readable name of the interface']);
    }
  });

  test('text PostgreSQL could not store as submitted is rejected', () => {
    assert.deepEqual(issues(ethereumParameters({ label: 'To\u0000ken' })), ['label: must not contain the NUL character (\\u0000)']);
    assert.match(issues(ethereumParameters({ notes: 'half \uD83D of an emoji' }))[0]!, /^notes: must be well-formed Unicode/);
  });

  test('the interface may be 409,600 bytes of UTF-8, not one more', () => {
    const atLimit = abiOfBytes(MAX_INTERFACE_BYTES);
    assert.ok(atLimit.length < MAX_INTERFACE_BYTES, 'multi-byte characters: fewer characters than bytes');
    assert.equal(handler.parameters.parse(ethereumParameters({ smartContractInterface: atLimit })).smartContractInterface, atLimit);

    assert.deepEqual(issues(ethereumParameters({ smartContractInterface: abiOfBytes(MAX_INTERFACE_BYTES + 1) })), [
      'smartContractInterface: is 409601 bytes of UTF-8, over the limit of 409600 bytes (400 KiB); remove what is not needed (e.g. docs) or split the interface',
    ]);
    // Bytes, not characters: 150,000 characters of 3 bytes each are over the limit.
    assert.match(issues(ethereumParameters({ smartContractInterface: JSON.stringify(['€'.repeat(150_000)]) }))[0]!, /is 450004 bytes of UTF-8/);
  });

  test('the interface must be JSON', () => {
    for (const text of ['', 'transfer(address,uint256)', '[{"type":"function",}]']) {
      const found = issues(ethereumParameters({ smartContractInterface: text }));
      assert.equal(found.length, 1, text);
      assert.match(found[0]!, /^smartContractInterface: must be JSON text \(the ABI or IDL serialized as a string\): /, text);
    }
  });

  test('a Solana IDL submitted as Ethereum (and the reverse) says which type it is', () => {
    assert.deepEqual(issues(ethereumParameters({ smartContractInterface: JSON.stringify(idl) })), [
      'smartContractInterface: is a Solana IDL, not an Ethereum ABI: set type to SMART_CONTRACT_INTERFACE_TYPE_SOLANA, or submit an Ethereum ABI',
    ]);
    assert.deepEqual(issues(solanaParameters({ smartContractInterface: JSON.stringify(abi) })), [
      'smartContractInterface: is an Ethereum ABI, not a Solana IDL: set type to SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM, or submit a Solana IDL',
    ]);
  });

  test('ABI and IDL problems name their JSON path', () => {
    const badAbi = [abi[0], { ...abi[0], inputs: [{ name: 'to', type: 'adress' }] }];
    assert.deepEqual(issues(ethereumParameters({ smartContractInterface: JSON.stringify(badAbi) })), [
      'smartContractInterface: is not an Ethereum ABI: [1].inputs[0].type: "adress" is not a Solidity ABI type; use an elementary type (uint256, int8, address, bool, string, bytes, bytes32, …), tuple with components, or an array of one such as uint256[] or address[3]',
    ]);
    const badIdl = { ...idl, instructions: [{ ...idl.instructions[0], args: [{ name: 'by', type: 'u65' }] }] };
    assert.match(issues(solanaParameters({ smartContractInterface: JSON.stringify(badIdl) }))[0]!, /^smartContractInterface: is not a Solana IDL: instructions\[0\]\.args\[0\]\.type: "u65" is not an IDL type/);
    // Neither kind: the problems of the declared kind.
    assert.deepEqual(issues(solanaParameters({ smartContractInterface: '42' })), [
      'smartContractInterface: is not a Solana IDL: a Solana IDL must be a JSON object with instructions, got a number',
    ]);
  });

  test('many problems are reported up to ten, with a count of the rest', () => {
    const badAbi = Array.from({ length: 25 }, (_, i) => ({ type: 'function', name: `f${i}`, inputs: [{ name: 'x', type: 'uint' }] }));
    const found = issues(ethereumParameters({ smartContractInterface: JSON.stringify(badAbi) }));
    assert.equal(found.length, 10);
    assert.match(found[0]!, /^smartContractInterface: is not an Ethereum ABI: \[0\]\.inputs\[0\]\.type: "uint" is an alias/);
    assert.match(found[9]!, /\[9\]\.inputs\[0\]\.type: .* \(and 15 more problems\)$/);
  });

  test('deeply nested JSON gets an answer, not a crash', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    assert.equal(issues(ethereumParameters({ smartContractInterface: deep })).length, 1);
    const deepIdl = JSON.stringify({ ...idl, instructions: [{ ...idl.instructions[0], args: [{ name: 'x', type: 'TYPE' }] }] }).replace(
      '"TYPE"',
      '{"vec":'.repeat(50_000) + '"u8"' + '}'.repeat(50_000),
    );
    // Past the interface's nesting bound the rules do not run at all; below it they name their own limit.
    assert.match(issues(solanaParameters({ smartContractInterface: deepIdl }))[0]!, /nests objects and arrays more than 128 levels deep/);
    const idlNested = (levels: number) =>
      JSON.stringify({ ...idl, instructions: [{ ...idl.instructions[0], args: [{ name: 'x', type: 'TYPE' }] }] }).replace(
        '"TYPE"',
        '{"vec":'.repeat(levels) + '"u8"' + '}'.repeat(levels),
      );
    assert.match(issues(solanaParameters({ smartContractInterface: idlNested(40) }))[0]!, /types may be nested at most 32 levels deep/);
  });

  test('the address must fit the type', () => {
    assert.deepEqual(issues(ethereumParameters({ smartContractAddress: '0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed' })), [
      'smartContractAddress: is not a valid Ethereum address: mixed-case address does not match its EIP-55 checksum, so a character is probably wrong; copy the address again from its source',
    ]);
    // All lower case carries no checksum and is accepted.
    assert.equal(handler.parameters.safeParse(ethereumParameters({ smartContractAddress: ethereumAddress.toLowerCase() })).success, true);
  });

  test('an address of the other chain says so', () => {
    assert.deepEqual(issues(ethereumParameters({ smartContractAddress: solanaAddress })), [
      "smartContractAddress: is not a valid Ethereum address (it is a valid Solana address): set type to SMART_CONTRACT_INTERFACE_TYPE_SOLANA, or give the contract's Ethereum address",
    ]);
    assert.deepEqual(issues(solanaParameters({ smartContractAddress: ethereumAddress })), [
      "smartContractAddress: is not a valid Solana address (it is a valid Ethereum address): set type to SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM, or give the contract's Solana address",
    ]);
    assert.match(issues(solanaParameters({ smartContractAddress: 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476z' }))[0]!, /^smartContractAddress: is not a valid Solana address: decodes to 28 bytes/);
  });

  test('every problem is reported at once, not only the first', () => {
    const { label: _, ...withoutLabel } = ethereumParameters({
      smartContractAddress: '0x123',
      smartContractInterface: '{"abi": []}',
      extra: true,
    });
    const parsed = handler.parameters.safeParse(withoutLabel);
    assert.equal(parsed.success, false);
    assert.deepEqual(parsed.error!.issues.map((issue) => issue.path.join('.') || issue.code).sort(), [
      'label',
      'smartContractAddress',
      'smartContractInterface',
      'unrecognized_keys',
    ]);
  });
});

/** Parameters parsed by the handler's schema (the engine parses them again: the same values). */
function parse(parameters: unknown) {
  return handler.parameters.parse(parameters);
}

for (const tdb of testDatabases) {
  describe(`create_smart_contract_interface execute (${tdb.name})`, () => {
    let db: Database;
    const organizationId = randomUUID();
    const userId = randomUUID();
    const config = loadConfig({});

    before(async () => {
      db = await tdb.open();
      await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'Acme']);
      await db.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [userId, organizationId, 'root']);
    });
    after(async () => {
      await db.close();
    });

    /** Runs the handler through the engine: the activity and its row written in one statement. */
    async function run(intent: ReturnType<typeof parse>, now = new Date('2026-11-22T10:00:00.123Z')) {
      const activity = await runActivity(db, handler, { organizationId, parameters: intent, config, secret: Buffer.alloc(32), now });
      return { activityId: activity.id, result: activity.result as { smartContractInterfaceId: string }, now };
    }

    test('stores one row with the interface as submitted and its digest', async () => {
      // Pretty-printed, with multi-byte text and a trailing newline: stored byte for byte, not re-serialised.
      const withComment = `${JSON.stringify([{ ...abi[0], devdoc: 'Überweisung 💸' }, abi[1]], null, 2)}\n`;
      const intent = parse(ethereumParameters({ smartContractInterface: withComment, notes: 'mainnet deployment' }));
      const { activityId, result, now } = await run(intent);

      assert.match(result.smartContractInterfaceId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const rows = await db.query<Record<string, unknown>>('SELECT * FROM smart_contract_interfaces WHERE id = $1', [result.smartContractInterfaceId]);
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      assert.equal(row.organization_id, organizationId);
      assert.equal(row.activity_id, activityId);
      assert.equal(row.smart_contract_address, ethereumAddress);
      assert.equal(row.smart_contract_interface, withComment);
      assert.equal(row.type, ETHEREUM);
      assert.equal(row.label, 'Token');
      assert.equal(row.notes, 'mainnet deployment');
      assert.equal(row.digest, `sha256:${createHash('sha256').update(Buffer.from(withComment, 'utf8')).digest('hex')}`);
      assert.equal((row.created_at as Date).toISOString(), now.toISOString());
      assert.equal((row.updated_at as Date).toISOString(), now.toISOString());
    });

    test('stores a Solana IDL without notes as an empty note', async () => {
      const { result } = await run(parse(solanaParameters()));
      const [row] = await db.query<Record<string, unknown>>('SELECT type, smart_contract_address, notes FROM smart_contract_interfaces WHERE id = $1', [
        result.smartContractInterfaceId,
      ]);
      assert.deepEqual(row, { type: SOLANA, smart_contract_address: solanaAddress, notes: '' });
    });

    test('an interface of exactly 409,600 bytes is stored whole', async () => {
      const text = abiOfBytes(MAX_INTERFACE_BYTES);
      const { result } = await run(parse(ethereumParameters({ smartContractInterface: text })));
      const [row] = await db.query<{ smart_contract_interface: string; digest: string; bytes: number }>(
        'SELECT smart_contract_interface, digest, octet_length(smart_contract_interface) AS bytes FROM smart_contract_interfaces WHERE id = $1',
        [result.smartContractInterfaceId],
      );
      assert.equal(row!.bytes, MAX_INTERFACE_BYTES);
      assert.equal(row!.smart_contract_interface, text);
      assert.equal(row!.digest, `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`);
    });

    test('each activity gets its own row and id', async () => {
      const first = await run(parse(ethereumParameters()));
      const second = await run(parse(ethereumParameters()));
      assert.notEqual(first.result.smartContractInterfaceId, second.result.smartContractInterfaceId);
      const [{ count }] = (await db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM smart_contract_interfaces WHERE activity_id = ANY($1::uuid[])',
        [[first.activityId, second.activityId]],
      )) as [{ count: number }];
      assert.equal(count, 2);
    });
  });
}
