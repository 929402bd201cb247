// Other encodings of a P-256 DER ECDSA signature that still carry its (r, s): what a lenient ASN.1
// parser accepts and a strict DER check must refuse, each with the problem the refusal names.

export interface NonCanonicalEncoding {
  name: string;
  signature: Buffer;
  /** What the strict DER check says is wrong, word for word. */
  problem: string;
}

/**
 * True when every encoding below can be made from `der`: a SEQUENCE length of 0x45 because s, and
 * not r, has a leading zero (about one ECDSA signature in four).
 */
export function hasEveryShape(der: Buffer): boolean {
  const { r, s } = derParts(der);
  return der[1] === 0x45 && r[0] !== 0 && s[0] === 0;
}

/** Non-canonical encodings of `der`, which must pass hasEveryShape. */
export function nonCanonicalEncodings(der: Buffer): NonCanonicalEncoding[] {
  if (!hasEveryShape(der)) throw new Error('nonCanonicalEncodings: the signature lacks the needed shape');
  const { r, s } = derParts(der);
  const sTag = 4 + r.length;
  return [
    { name: 'SEQUENCE tag 0x30 → 0xb0', signature: flipHighBit(der, 0), problem: 'it must start with a SEQUENCE' },
    { name: 'SEQUENCE length 0x45 → 0x44', signature: Buffer.from([0x30, 0x44, ...der.subarray(2)]), problem: 'the SEQUENCE length must cover exactly the rest of the signature' },
    { name: 'long-form SEQUENCE length', signature: Buffer.from([0x30, 0x81, ...der.subarray(1)]), problem: 'the SEQUENCE length must be in short form' },
    { name: 'an extra leading zero in r', signature: sequence(Buffer.concat([Buffer.from([0]), r]), s), problem: 'r has a superfluous leading zero' },
    { name: 'negative s (its leading zero dropped)', signature: sequence(r, s.subarray(1)), problem: 's must not be negative' },
    { name: 'a byte after s, inside the SEQUENCE', signature: sequence(r, s, Buffer.from([0])), problem: 'there are bytes after s' },
    { name: 'a byte after the SEQUENCE', signature: Buffer.concat([der, Buffer.from([0])]), problem: 'the SEQUENCE length must cover exactly the rest of the signature' },
    { name: 'INTEGER tag of r 0x02 → 0x82', signature: flipHighBit(der, 2), problem: 'r must be an INTEGER' },
    { name: 'INTEGER tag of s 0x02 → 0x82', signature: flipHighBit(der, sTag), problem: 's must be an INTEGER' },
  ];
}

/** The contents of r and s in a DER ECDSA-Sig-Value with a short-form SEQUENCE length. */
function derParts(der: Buffer): { r: Buffer; s: Buffer } {
  const r = der.subarray(4, 4 + der[3]!);
  const sTag = 4 + r.length;
  return { r, s: der.subarray(sTag + 2, sTag + 2 + der[sTag + 1]!) };
}

/** SEQUENCE { INTEGER r, INTEGER s } from INTEGER contents as given, right or wrong, then any extra bytes. */
function sequence(r: Buffer, s: Buffer, extra = Buffer.alloc(0)): Buffer {
  const content = Buffer.concat([Buffer.from([0x02, r.length]), r, Buffer.from([0x02, s.length]), s, extra]);
  return Buffer.concat([Buffer.from([0x30, content.length]), content]);
}

function flipHighBit(bytes: Buffer, index: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[index]! ^= 0x80;
  return copy;
}
