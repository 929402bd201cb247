// An OTP message as a channel sender reads it from its outbox row: the payload, and the code opened
// with the deployment secret.
import type { StoredPayload } from '../otp/messages.ts';
import { decryptCode } from '../otp/sealedCode.ts';
import type { ClaimedMessage } from '../store/outbox.ts';
import { DeliveryError } from './deliveryError.ts';

/** The message and its code; a DeliveryError (permanent) when the code is gone or cannot be opened. */
export function openOtpMessage<Message extends StoredPayload>(secret: Buffer, claimed: ClaimedMessage): { message: Message; code: string } {
  const message = claimed.payload as Message;
  if (!message.encryptedCode) throw new DeliveryError('the message has no code to send', { permanent: true });
  try {
    return { message, code: decryptCode(secret, claimed.id, message.encryptedCode) };
  } catch {
    throw new DeliveryError('the code cannot be decrypted: SIGNET_OTP_SECRET differs from the one it was queued with', { permanent: true });
  }
}

/** What every log line about an OTP message names: its OTP. */
export function otpLogFields(claimed: ClaimedMessage): { otpId: string | null } {
  return { otpId: claimed.otpId };
}
