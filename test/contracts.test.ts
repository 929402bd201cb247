// The contract rules on their own: Ethereum ABIs, Anchor IDLs (both formats), Ethereum addresses
// with EIP-55 checksums and Solana addresses.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { base58 } from '@scure/base';
import { ethereumAddressProblem, solanaAddressProblem } from '../src/contracts/address.ts';
import { ethereumAbiProblems, MAX_TUPLE_DEPTH, solidityTypeProblem } from '../src/contracts/ethereumAbi.ts';
import { MAX_IDL_TYPE_DEPTH, solanaIdlProblems } from '../src/contracts/solanaIdl.ts';

const param = (name: string, type: string, extra: object = {}) => ({ name, type, internalType: type, ...extra });
const fn = (name: string, inputs: object[], outputs: object[], stateMutability = 'nonpayable') => ({
  type: 'function',
  name,
  inputs,
  outputs,
  stateMutability,
});

// ERC-20 (EIP-20) as solc emits it.
const erc20Abi = [
  { type: 'constructor', inputs: [param('name_', 'string'), param('symbol_', 'string')], stateMutability: 'nonpayable' },
  fn('name', [], [param('', 'string')], 'view'),
  fn('symbol', [], [param('', 'string')], 'view'),
  fn('decimals', [], [param('', 'uint8')], 'view'),
  fn('totalSupply', [], [param('', 'uint256')], 'view'),
  fn('balanceOf', [param('account', 'address')], [param('', 'uint256')], 'view'),
  fn('transfer', [param('to', 'address'), param('value', 'uint256')], [param('', 'bool')]),
  fn('allowance', [param('owner', 'address'), param('spender', 'address')], [param('', 'uint256')], 'view'),
  fn('approve', [param('spender', 'address'), param('value', 'uint256')], [param('', 'bool')]),
  fn('transferFrom', [param('from', 'address'), param('to', 'address'), param('value', 'uint256')], [param('', 'bool')]),
  {
    type: 'event',
    name: 'Transfer',
    inputs: [param('from', 'address', { indexed: true }), param('to', 'address', { indexed: true }), param('value', 'uint256', { indexed: false })],
    anonymous: false,
  },
  {
    type: 'event',
    name: 'Approval',
    inputs: [param('owner', 'address', { indexed: true }), param('spender', 'address', { indexed: true }), param('value', 'uint256', { indexed: false })],
    anonymous: false,
  },
  { type: 'error', name: 'ERC20InsufficientBalance', inputs: [param('sender', 'address'), param('balance', 'uint256'), param('needed', 'uint256')] },
];

/** One function taking `inputs`, for checking parameter rules. */
const withInputs = (...inputs: unknown[]) => [fn('f', inputs as object[], [])];

describe('ethereumAbiProblems', () => {
  test('accepts an ERC-20 ABI', () => {
    assert.deepEqual(ethereumAbiProblems(erc20Abi), []);
  });

  test('accepts tuples, arrays of tuples, nested arrays and every entry type', () => {
    const order = {
      name: 'order',
      type: 'tuple',
      internalType: 'struct Exchange.Order',
      components: [
        param('maker', 'address'),
        param('amounts', 'uint128[2]'),
        { name: 'fills', type: 'tuple[]', components: [param('taker', 'address'), param('at', 'uint64')] },
        param('salt', 'bytes32'),
        param('data', 'bytes'),
      ],
    };
    const abi = [
      fn('settle', [order, param('matrix', 'int24[3][]'), param('price', 'ufixed128x18'), param('callback', 'function')], [param('ok', 'bool')], 'payable'),
      fn('quote', [], [{ name: '', type: 'tuple[2]', components: [param('a', 'int8'), param('b', 'string')] }], 'pure'),
      { type: 'fallback', stateMutability: 'payable' },
      { type: 'receive', stateMutability: 'payable' },
      { type: 'event', name: 'Settled', inputs: [{ ...order, indexed: false }, param('who', 'address', { indexed: true })], anonymous: false },
      { type: 'event', name: 'Raw', inputs: [1, 2, 3, 4].map((i) => param(`t${i}`, 'bytes32', { indexed: true })), anonymous: true },
      // Pre-0.5 tooling: no stateMutability, `constant` instead; extra keys such as Vyper's gas are kept.
      { type: 'function', name: 'legacy', inputs: [], outputs: [], constant: true, payable: false, gas: 1234 },
    ];
    assert.deepEqual(ethereumAbiProblems(abi), []);
    assert.deepEqual(ethereumAbiProblems([]), []);
  });

  test('names the path of each bad parameter type', () => {
    const problems = ethereumAbiProblems([
      ...erc20Abi.slice(0, 2),
      fn('f', [param('a', 'uint256'), param('b', 'uint7')], [param('', 'bytes33')]),
    ]);
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /^\[2\]\.inputs\[1\]\.type: "uint7" is not a valid integer type/);
    assert.match(problems[1]!, /^\[2\]\.outputs\[0\]\.type: "bytes33": fixed-size byte types are bytes1 to bytes32/);
  });

  test('rejects each kind of invalid Solidity type', () => {
    const invalid: [string, RegExp][] = [
      ['uint7', /multiple of 8 from 8 to 256/],
      ['int264', /multiple of 8 from 8 to 256/],
      ['uint08', /multiple of 8/],
      ['uint', /alias; write the canonical uint256/],
      ['int', /alias; write the canonical int256/],
      ['bytes0', /bytes1 to bytes32/],
      ['bytes33', /bytes1 to bytes32/],
      ['fixed', /alias; write the canonical fixed128x18/],
      ['fixed128x0', /N from 1 to 80/],
      ['ufixed7x18', /M must be a multiple of 8/],
      ['fixed128x81', /N from 1 to 80/],
      ['uint256[0]', /length of at least 1/],
      ['uint256[01]', /without leading zeros/],
      ['uint256[x]', /malformed array suffix/],
      ['uint256[', /malformed array suffix/],
      ['address payable', /not a Solidity ABI type/],
      ['Uint256', /not a Solidity ABI type/],
      ['', /not a Solidity ABI type/],
      ['struct Foo', /not a Solidity ABI type/],
    ];
    for (const [type, message] of invalid) {
      assert.match(solidityTypeProblem(type) ?? 'valid', message, type);
      const problems = ethereumAbiProblems(withInputs(param('a', type)));
      assert.equal(problems.length, 1, type);
      assert.match(problems[0]!, /^\[0\]\.inputs\[0\]\.type: /, type);
    }
    for (const type of ['uint8', 'int256', 'bytes1', 'bytes32', 'address[]', 'bool[4][]', 'string[][2]', 'fixed8x1', 'ufixed256x80']) {
      assert.equal(solidityTypeProblem(type), undefined, type);
    }
  });

  test('tuples need components, other types must not have them, and nesting is bounded', () => {
    assert.deepEqual(ethereumAbiProblems(withInputs(param('s', 'tuple'))), [
      "[0].inputs[0].components: is required when type is tuple: the tuple's parameters",
    ]);
    assert.match(ethereumAbiProblems(withInputs({ ...param('s', 'uint8'), components: [] }))[0]!, /components: is only allowed when type is a tuple/);
    assert.match(
      ethereumAbiProblems(withInputs({ name: 's', type: 'tuple', components: [param('x', 'tuple[]')] }))[0]!,
      /^\[0\]\.inputs\[0\]\.components\[0\]\.components: is required when type is tuple\[\]/,
    );

    const nested = (depth: number): object => (depth === 0 ? param('leaf', 'uint8') : { name: 'n', type: 'tuple', components: [nested(depth - 1)] });
    assert.deepEqual(ethereumAbiProblems(withInputs(nested(MAX_TUPLE_DEPTH))), []);
    const tooDeep = ethereumAbiProblems(withInputs(nested(MAX_TUPLE_DEPTH + 1)));
    assert.equal(tooDeep.length, 1);
    assert.match(tooDeep[0]!, /components: tuples may be nested at most 32 levels deep$/);
    // Far deeper than the call stack would allow, still a clean answer.
    assert.equal(ethereumAbiProblems(withInputs(nested(5000))).length, 1);
  });

  test('rejects entries of unknown or missing type, and values that are not an ABI', () => {
    assert.deepEqual(ethereumAbiProblems([{ type: 'modifier', name: 'onlyOwner' }]), [
      '[0].type: must be one of function, constructor, event, error, fallback, receive, got "modifier"',
    ]);
    assert.deepEqual(ethereumAbiProblems([{ name: 'transfer', inputs: [] }]), [
      '[0].type: is required: one of function, constructor, event, error, fallback, receive',
    ]);
    assert.deepEqual(ethereumAbiProblems(['transfer(address,uint256)']), ['[0]: each ABI entry must be a JSON object, got a string']);
    assert.deepEqual(ethereumAbiProblems({ type: 'function', name: 'f' }), ['an Ethereum ABI must be a JSON array of entries, got an object']);
    assert.deepEqual(ethereumAbiProblems(null), ['an Ethereum ABI must be a JSON array of entries, got null']);
    // A build artifact (Hardhat, Foundry) instead of its ABI.
    assert.match(ethereumAbiProblems({ contractName: 'Token', abi: erc20Abi, bytecode: '0x' })[0]!, /submit only the value of "abi"/);
  });

  test('functions, events and errors need a valid name', () => {
    assert.deepEqual(ethereumAbiProblems([{ type: 'function', inputs: [], outputs: [], stateMutability: 'view' }]), [
      "[0].name: is required: the function's name",
    ]);
    assert.deepEqual(ethereumAbiProblems([{ type: 'event', inputs: [] }]), ["[0].name: is required: the event's name"]);
    assert.deepEqual(ethereumAbiProblems([{ type: 'error', name: 'Bad-Thing', inputs: [] }]), [
      '[0].name: "Bad-Thing" is not a valid error name (letters, digits, _ and $, not starting with a digit)',
    ]);
    assert.deepEqual(ethereumAbiProblems([{ type: 'function', name: 7 }]), ['[0].name: must be a string, got a number']);
    assert.match(ethereumAbiProblems(withInputs(param('two words', 'uint8')))[0]!, /\[0\]\.inputs\[0\]\.name: "two words" is not a valid parameter name/);
  });

  test('stateMutability must fit the entry', () => {
    assert.deepEqual(ethereumAbiProblems([fn('f', [], [], 'constant')]), [
      '[0].stateMutability: must be pure, view, nonpayable or payable, got "constant"',
    ]);
    assert.match(ethereumAbiProblems([{ type: 'receive', stateMutability: 'nonpayable' }])[0]!, /^\[0\]\.stateMutability: must be payable/);
    assert.match(ethereumAbiProblems([{ type: 'constructor', inputs: [], stateMutability: 'view' }])[0]!, /must be nonpayable or payable for a constructor/);
    assert.match(ethereumAbiProblems([{ type: 'fallback', stateMutability: 'pure' }])[0]!, /must be nonpayable or payable for a fallback function/);
  });

  test('indexed belongs to event inputs only, as a boolean, at most 3 (4 when anonymous)', () => {
    assert.deepEqual(ethereumAbiProblems(withInputs(param('a', 'address', { indexed: true }))), [
      '[0].inputs[0].indexed: is only allowed on the inputs of an event entry; remove it',
    ]);
    assert.deepEqual(ethereumAbiProblems([{ type: 'event', name: 'E', inputs: [param('a', 'address', { indexed: 'yes' })] }]), [
      '[0].inputs[0].indexed: must be true or false, got a string',
    ]);
    const fourIndexed = [1, 2, 3, 4].map((i) => param(`a${i}`, 'uint8', { indexed: true }));
    assert.deepEqual(ethereumAbiProblems([{ type: 'event', name: 'E', inputs: fourIndexed, anonymous: false }]), [
      '[0].inputs: has 4 indexed inputs, but an event can index at most 3 (4 if anonymous)',
    ]);
    assert.deepEqual(ethereumAbiProblems([{ type: 'event', name: 'E', inputs: fourIndexed, anonymous: true }]), []);
  });

  test('inputs and outputs must be arrays of parameter objects with a type', () => {
    assert.deepEqual(ethereumAbiProblems([{ type: 'error', name: 'E', inputs: { a: 'uint8' } }]), [
      '[0].inputs: must be an array of parameters, got an object',
    ]);
    assert.deepEqual(ethereumAbiProblems(withInputs('uint256')), [
      '[0].inputs[0]: each parameter must be a JSON object with a type, got a string',
    ]);
    assert.deepEqual(ethereumAbiProblems(withInputs({ name: 'a' })), [
      '[0].inputs[0].type: is required: the Solidity type of the parameter, e.g. uint256',
    ]);
  });
});

// A counter program's IDL as Anchor emits it before 0.30 …
const legacyIdl = {
  version: '0.1.0',
  name: 'counter',
  instructions: [
    {
      name: 'initialize',
      accounts: [
        { name: 'counter', isMut: true, isSigner: true },
        { name: 'authority', isMut: true, isSigner: true },
        { name: 'systemProgram', isMut: false, isSigner: false },
      ],
      args: [{ name: 'start', type: 'u64' }],
    },
    {
      name: 'increment',
      accounts: [
        { name: 'counter', isMut: true, isSigner: false },
        { name: 'auth', accounts: [{ name: 'authority', isMut: false, isSigner: true }] },
      ],
      args: [
        { name: 'by', type: { option: 'u32' } },
        { name: 'memo', type: { vec: 'u8' } },
        { name: 'tag', type: { array: ['u8', 8] } },
        { name: 'delegate', type: { option: 'publicKey' } },
        { name: 'mode', type: { defined: 'Mode' } },
      ],
    },
  ],
  accounts: [
    {
      name: 'Counter',
      type: { kind: 'struct', fields: [{ name: 'authority', type: 'publicKey' }, { name: 'count', type: 'u64' }] },
    },
  ],
  types: [{ name: 'Mode', type: { kind: 'enum', variants: [{ name: 'Fast' }, { name: 'Safe' }] } }],
  events: [{ name: 'Incremented', fields: [{ name: 'count', type: 'u64', index: false }] }],
  errors: [{ code: 6000, name: 'Overflow', msg: 'Counter overflowed' }],
  metadata: { address: 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS' },
};

/** Anchor 0.30 discriminators: the first 8 bytes of sha256("<namespace>:<name>"). */
const discriminator = (preimage: string) => [...createHash('sha256').update(preimage).digest().subarray(0, 8)];

// … and the same program in the 0.30 format.
const modernIdl = {
  address: 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS',
  metadata: { name: 'counter', version: '0.1.0', spec: '0.1.0', description: 'Created with Anchor' },
  instructions: [
    {
      name: 'initialize',
      discriminator: discriminator('global:initialize'),
      accounts: [
        { name: 'counter', writable: true, signer: true },
        { name: 'authority', writable: true, signer: true },
        { name: 'system_program', address: '11111111111111111111111111111111' },
      ],
      args: [{ name: 'start', type: 'u64' }],
    },
    {
      name: 'increment',
      discriminator: discriminator('global:increment'),
      accounts: [
        { name: 'counter', writable: true, relations: ['authority'] },
        { name: 'auth', accounts: [{ name: 'authority', signer: true }] },
      ],
      args: [
        { name: 'by', type: { option: 'u32' } },
        { name: 'memo', type: 'bytes' },
        { name: 'tag', type: { array: ['u8', 8] } },
        { name: 'delegate', type: { option: 'pubkey' } },
        { name: 'mode', type: { defined: { name: 'Mode' } } },
        { name: 'window', type: { defined: { name: 'Window', generics: [{ kind: 'const', value: '4' }] } } },
      ],
      returns: 'u64',
    },
  ],
  accounts: [{ name: 'Counter', discriminator: discriminator('account:Counter') }],
  events: [{ name: 'Incremented', discriminator: discriminator('event:Incremented') }],
  errors: [{ code: 6000, name: 'Overflow', msg: 'Counter overflowed' }],
  types: [
    { name: 'Counter', type: { kind: 'struct', fields: [{ name: 'authority', type: 'pubkey' }, { name: 'count', type: 'u64' }] } },
    { name: 'Mode', type: { kind: 'enum', variants: [{ name: 'Fast' }, { name: 'Safe' }] } },
    {
      name: 'Window',
      generics: [{ kind: 'const', name: 'N', type: 'usize' }],
      type: { kind: 'struct', fields: [{ name: 'slots', type: { array: ['u64', { generic: 'N' }] } }] },
    },
  ],
  constants: [{ name: 'SEED', type: 'bytes', value: '[99, 111, 117, 110, 116]' }],
};

describe('solanaIdlProblems', () => {
  test('accepts an Anchor IDL in the format before 0.30 and in the 0.30 format', () => {
    assert.deepEqual(solanaIdlProblems(legacyIdl), []);
    assert.deepEqual(solanaIdlProblems(modernIdl), []);
  });

  test('an IDL is an object with instructions', () => {
    assert.deepEqual(solanaIdlProblems(erc20Abi), [
      'a Solana IDL is a JSON object with instructions, and this is an array (an Ethereum ABI is an array)',
    ]);
    assert.deepEqual(solanaIdlProblems('counter'), ['a Solana IDL must be a JSON object with instructions, got a string']);
    const { instructions: _, ...withoutInstructions } = legacyIdl;
    assert.deepEqual(solanaIdlProblems(withoutInstructions), ["instructions: is required: the array of the program's instructions"]);
    assert.deepEqual(solanaIdlProblems({ ...legacyIdl, instructions: { initialize: {} } }), ['instructions: must be an array, got an object']);
  });

  test('it is in one of the two Anchor formats', () => {
    const { version: _v, name: _n, ...neither } = legacyIdl;
    assert.deepEqual(solanaIdlProblems(neither), [
      'an Anchor IDL needs at its top level either address and metadata (Anchor 0.30 and later) or version and name (earlier Anchor versions)',
    ]);
    assert.deepEqual(solanaIdlProblems({ ...legacyIdl, version: 1 }), ['version: must be a non-empty string']);
    assert.deepEqual(solanaIdlProblems({ ...modernIdl, metadata: { name: 'counter', spec: '0.1.0' } }), ['metadata.version: must be a non-empty string']);
    assert.deepEqual(solanaIdlProblems({ ...modernIdl, metadata: undefined }), ['metadata: is required: an object with name, version and spec']);
    assert.match(solanaIdlProblems({ ...modernIdl, address: 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLn0' })[0]!, /^address: contains "0"/);
  });

  test('instructions have a name, accounts and args; 0.30 instructions have a discriminator', () => {
    const instruction = legacyIdl.instructions[0]!;
    assert.deepEqual(solanaIdlProblems({ ...legacyIdl, instructions: [{ ...instruction, name: '' }] }), [
      "instructions[0].name: must not be empty: the instruction's name",
    ]);
    assert.deepEqual(solanaIdlProblems({ ...legacyIdl, instructions: [{ name: 'initialize', args: [] }] }), [
      'instructions[0].accounts: is required: the accounts the instruction takes (may be empty)',
    ]);
    assert.deepEqual(solanaIdlProblems({ ...legacyIdl, instructions: [{ name: 'initialize', accounts: [], args: 'u64' }] }), [
      'instructions[0].args: must be an array, got a string',
    ]);
    assert.deepEqual(
      solanaIdlProblems({ ...legacyIdl, instructions: [{ ...instruction, accounts: [{ isMut: 'yes' }, 'payer'] }] }),
      [
        "instructions[0].accounts[0].name: is required: the account's name",
        'instructions[0].accounts[0].isMut: must be true or false, got a string',
        'instructions[0].accounts[1]: each account must be a JSON object with a name, got a string',
      ],
    );
    const { discriminator: _, ...undiscriminated } = modernIdl.instructions[1]!;
    assert.deepEqual(solanaIdlProblems({ ...modernIdl, instructions: [modernIdl.instructions[0], undiscriminated] }), [
      'instructions[1].discriminator: is required in the Anchor 0.30 format: the bytes that select the instruction',
    ]);
    assert.match(
      solanaIdlProblems({ ...modernIdl, instructions: [{ ...modernIdl.instructions[0], discriminator: [1, 256] }] })[0]!,
      /^instructions\[0\]\.discriminator\[1\]: /,
    );
  });

  test('argument types follow the Anchor type grammar', () => {
    const withArgs = (...args: object[]) => ({ ...legacyIdl, instructions: [{ name: 'go', accounts: [], args }] });
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: 'u63' }))[0]!, /^instructions\[0\]\.args\[0\]\.type: "u63" is not an IDL type; use one of bool, u8/);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: { vec: { map: ['u8', 'u8'] } } }))[0]!, /^instructions\[0\]\.args\[0\]\.type\.vec: "map" is not an IDL type form/);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: { array: ['u8'] } }))[0]!, /type\.array: must be \[element type, length\]/);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: { array: ['u8', -1] } }))[0]!, /type\.array\[1\]: the array length must be a whole number/);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: { array: [{ vec: 'u9' }, 2] } }))[0]!, /type\.array\[0\]\.vec: "u9" is not an IDL type/);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: { defined: '' } }))[0]!, /type\.defined: must name a type defined in the IDL/);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: { vec: 'u8', option: 'u8' } }))[0]!, /type: a type object has exactly one key/);
    assert.deepEqual(solanaIdlProblems(withArgs({ name: 'a' })), [
      'instructions[0].args[0].type: is required: an IDL type such as "u64" or {"vec": "u8"}',
    ]);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: 64 }))[0]!, /type: must be a type name or a type object/);

    const nested = (depth: number): unknown => (depth === 0 ? 'u8' : { option: nested(depth - 1) });
    assert.deepEqual(solanaIdlProblems(withArgs({ name: 'a', type: nested(MAX_IDL_TYPE_DEPTH) })), []);
    assert.match(solanaIdlProblems(withArgs({ name: 'a', type: nested(5000) }))[0]!, /types may be nested at most 32 levels deep$/);
  });

  test('the other known top-level keys are arrays when present', () => {
    assert.deepEqual(
      solanaIdlProblems({ ...legacyIdl, accounts: {}, types: 'Mode', events: null, constants: [7] }),
      [
        'accounts: must be an array of accounts when present, got an object',
        'types: must be an array of types when present, got a string',
        'events: must be an array of events when present, got null',
        'constants[0]: each item must be a JSON object with a name, got a number',
      ],
    );
    assert.deepEqual(solanaIdlProblems({ ...legacyIdl, errors: [{ name: 'Overflow', msg: 'x' }] }), [
      'errors[0].code: is required: the numeric error code',
    ]);
  });
});

describe('ethereumAddressProblem', () => {
  // The test vectors of EIP-55 itself.
  const checksummed = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];
  const allUpper = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D'];
  const allLower = ['0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26'];

  test('accepts the EIP-55 checksummed, all-caps and all-lowercase vectors', () => {
    for (const address of [...checksummed, ...allUpper, ...allLower]) assert.equal(ethereumAddressProblem(address), undefined, address);
    // Addresses in one case carry no checksum; the checksummed vectors in one case are fine too.
    for (const address of checksummed) {
      assert.equal(ethereumAddressProblem(`0x${address.slice(2).toLowerCase()}`), undefined);
      assert.equal(ethereumAddressProblem(`0x${address.slice(2).toUpperCase()}`), undefined);
    }
  });

  test('rejects each checksummed vector with one letter of the wrong case', () => {
    for (const address of checksummed) {
      const letters = [...address.slice(2)].flatMap((char, index) => (/[a-fA-F]/.test(char) ? [index + 2] : []));
      for (const index of letters) {
        const char = address[index]!;
        const flipped = address.slice(0, index) + (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()) + address.slice(index + 1);
        const hex = flipped.slice(2);
        if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) continue; // became single-case: no checksum to break
        assert.match(ethereumAddressProblem(flipped) ?? 'accepted', /does not match its EIP-55 checksum/, flipped);
      }
    }
  });

  test('rejects what is not 0x and 40 hex digits', () => {
    assert.match(ethereumAddressProblem('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')!, /must start with 0x/);
    assert.match(ethereumAddressProblem('0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')!, /must start with 0x/);
    assert.match(ethereumAddressProblem('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe')!, /it has 39$/);
    assert.match(ethereumAddressProblem('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd')!, /it has 41$/);
    assert.match(ethereumAddressProblem('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg')!, /contains other characters/);
    assert.match(ethereumAddressProblem('')!, /must start with 0x/);
  });
});

describe('solanaAddressProblem', () => {
  test('accepts base58 of 32 bytes', () => {
    for (const address of [
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', // SPL Token program
      'So11111111111111111111111111111111111111112', // wrapped SOL mint
      '11111111111111111111111111111111', // System program: 32 zero bytes
      base58.encode(new Uint8Array(32).fill(255)), // the longest form, 44 characters
    ]) {
      assert.equal(solanaAddressProblem(address), undefined, address);
    }
  });

  test('rejects base58 of another length', () => {
    assert.match(solanaAddressProblem(base58.encode(new Uint8Array(31).fill(7)))!, /decodes to 31 bytes/);
    assert.match(solanaAddressProblem(base58.encode(Uint8Array.of(0, ...new Uint8Array(32).fill(7))))!, /decodes to 33 bytes/);
    assert.match(solanaAddressProblem('1111111111111111111111111111111')!, /decodes to 31 bytes/);
    assert.match(solanaAddressProblem('So11111111111111111111111111111111111111112' + '2')!, /decodes to 33 bytes/);
    assert.match(solanaAddressProblem('T'.repeat(100))!, /has 100 characters/);
    assert.match(solanaAddressProblem('')!, /must not be empty/);
  });

  test('rejects characters outside the base58 alphabet, naming the first', () => {
    for (const bad of ['0', 'O', 'I', 'l', '+', '/', ' ']) {
      const address = `Tokenke${bad}QfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA`;
      assert.equal(solanaAddressProblem(address), `contains ${JSON.stringify(bad)} at position 8, which is not a base58 character (base58 has no 0, O, I or l)`);
    }
    assert.match(solanaAddressProblem('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')!, /contains "0" at position 1/);
  });
});
