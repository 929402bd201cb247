// A valid Ethereum ABI of a chosen size (close to the 400 KiB limit in tests of large interfaces).

/** A JSON ABI of function entries whose text is at most `bytes` long and within 1 KiB of it. */
export function largeAbi(bytes: number): string {
  const entry = (i: number) =>
    JSON.stringify({
      type: 'function',
      name: `transferBatch${i}`,
      stateMutability: 'nonpayable',
      inputs: [
        { name: 'recipients', type: 'address[]', internalType: 'address[]' },
        { name: 'amounts', type: 'uint256[]', internalType: 'uint256[]' },
      ],
      outputs: [{ name: 'ok', type: 'bool', internalType: 'bool' }],
    });
  const entries: string[] = [];
  let size = 2;
  for (let i = 0; ; i++) {
    const next = entry(i);
    if (size + next.length + 1 > bytes) break;
    entries.push(next);
    size += next.length + 1;
  }
  return `[${entries.join(',')}]`;
}
