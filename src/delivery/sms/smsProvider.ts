// What an SMS provider does; each provider is a file beside this one, chosen by createSmsProvider.ts.

export interface SmsProvider {
  /** Name for logs: "twilio", "development". */
  readonly name: string;
  /**
   * Hands one text to the provider. Resolves with the provider's message id once it accepted the
   * message; rejects with a DeliveryError that says whether a retry can help.
   */
  send(sms: { to: string; text: string }): Promise<{ messageId: string }>;
}
