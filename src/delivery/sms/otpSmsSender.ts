// The SMS channel of OTP messages: opens the code, fills in the text and hands it to the provider.
import { renderOtpSms, type OtpSms, type StoredPayload } from '../../otp/messages.ts';
import type { ChannelSender } from '../channelSender.ts';
import { openOtpMessage, otpLogFields } from '../otpPayload.ts';
import type { SmsProvider } from './smsProvider.ts';

export function createOtpSmsSender(options: { secret: Buffer; provider: SmsProvider }): ChannelSender {
  const { secret, provider } = options;
  return {
    logFields: (claimed) => ({ ...otpLogFields(claimed), provider: provider.name }),
    async prepare(claimed) {
      const { message, code } = openOtpMessage<OtpSms & StoredPayload>(secret, claimed);
      const text = renderOtpSms(message, code);
      return () => provider.send({ to: message.to, text });
    },
    // A provider says what is permanent with a DeliveryError; anything else may pass.
    isPermanent: () => false,
    close() {},
  };
}
