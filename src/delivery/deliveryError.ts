// A failed delivery attempt as a transport judges it: permanent (this message can never be sent
// as it is) or temporary (retry with backoff, no sooner than the provider asked).
export class DeliveryError extends Error {
  override name = 'DeliveryError';
  /** True when retrying cannot help: the recipient or the content was refused. */
  readonly permanent: boolean;
  /** The provider's Retry-After, when it gave one. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { permanent: boolean; retryAfterMs?: number }) {
    super(message);
    this.permanent = options.permanent;
    this.retryAfterMs = options.retryAfterMs;
  }
}
