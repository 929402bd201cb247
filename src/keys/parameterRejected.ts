// The one refusal of the wallet and signing rules (mnemonics, derivation, addresses, raw payloads,
// chains/): it names the activity's field at fault, as the wire spells it (`parameters.payload`,
// `addressFormat`, `signWith`), and says what is wrong without echoing a secret. The activity
// handler turns it into its 400 (`invalidField(error.field, error.description)` of src/errors.ts).

export class ParameterRejected extends Error {
  override name = 'ParameterRejected';
  constructor(
    /** The field at fault, e.g. `parameters.unsignedTransaction`. */
    readonly field: string,
    /** What is wrong with it, for the client; never the value when it is a secret. */
    readonly description: string,
  ) {
    super(`${field}: ${description}`);
  }
}
