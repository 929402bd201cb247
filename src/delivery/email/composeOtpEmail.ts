// Builds the OTP email at delivery: the template the message carries (chosen when it was queued) or
// else the built-in one (both rendered by Handlebars with the same variables), with the logo fetched,
// resized and embedded inline by CID, and a Message-ID derived from the OTP. A logo that cannot be
// had leaves the email without it, and says why.
import { domainToASCII } from 'node:url';
import { renderOtpEmail, type OtpEmail } from '../../otp/messages.ts';
import { fetchLogo, LogoError, type Logo, type LogoOptions } from './logo.ts';
import type { OutgoingEmail } from './transport.ts';

export const LOGO_CID = 'logo@signet';

export interface ComposedEmail {
  email: OutgoingEmail;
  /** Why the requested logo is not in the email, when it is not. */
  logoProblem?: string;
}

/**
 * The Message-ID of an OTP's email, `<otp-{otpId}@{domain of the From address}>`: every attempt
 * of one OTP carries the same, so a receiver can collapse a copy sent again after a crash.
 */
export function otpMessageId(otpId: string, fromAddress: string): string {
  return messageIdFrom(`otp-${otpId}`, fromAddress);
}

/** A Message-ID `<{local}@{domain of the From address}>`. */
export function messageIdFrom(local: string, fromAddress: string): string {
  const domain = domainToASCII(fromAddress.slice(fromAddress.lastIndexOf('@') + 1)) || 'signet.invalid';
  return `<${local}@${domain}>`;
}

export async function composeOtpEmail(
  input: { otpId: string; message: OtpEmail; code: string; defaultFrom: string; logo: LogoOptions },
): Promise<ComposedEmail> {
  const { message, code } = input;
  let logo: Logo | undefined;
  let logoProblem: string | undefined;
  if (message.logoUrl) {
    try {
      logo = await fetchLogo(message.logoUrl, input.logo);
    } catch (error) {
      if (!(error instanceof LogoError)) throw error;
      logoProblem = error.message;
    }
  }

  const rendered = renderOtpEmail(message, code, {
    ...(logo ? { logo: { cid: LOGO_CID, width: logo.width, height: logo.height } } : {}),
  });

  const fromAddress = message.fromAddress ?? input.defaultFrom;
  return {
    email: {
      messageId: otpMessageId(input.otpId, fromAddress),
      from: { name: message.fromName, address: fromAddress },
      to: message.to,
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      ...rendered,
      ...(logo ? { attachments: [{ filename: 'logo.png', content: logo.png, contentType: 'image/png', cid: LOGO_CID }] } : {}),
    },
    ...(logoProblem ? { logoProblem } : {}),
  };
}
