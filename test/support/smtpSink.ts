// A real SMTP server on loopback that keeps what it receives, parsed, for email tests.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { until } from './until.ts';

export interface SmtpSink {
  /** smtp://127.0.0.1:<port>, for SIGNET_SMTP_URL. */
  url: string;
  messages: ParsedMail[];
  /** The next `count` recipients are refused with this SMTP reply code (451: try later, 550: no such user). */
  refuseNext(count: number, responseCode: number): void;
  /** The next `count` messages are received in full but answered only at releaseHeld(): their senders wait mid-send. */
  holdNext(count: number): void;
  /** How many messages are held unanswered now. */
  held(): number;
  /** Answers (accepts) the held messages. */
  releaseHeld(): void;
  /** Resolves once at least `count` messages arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  /** The first message to `address`, once it arrived; rejects after `timeoutMs`. */
  waitForMailTo(address: string, timeoutMs?: number): Promise<ParsedMail>;
  /** The OTP code (9 letters and digits) of the next message to `address` not read by this before, once it arrived. */
  nextCodeTo(address: string): Promise<string>;
  close(): Promise<void>;
}

/** An OTP code as the default email shows it: 9 letters and digits of Crockford's alphabet. */
const CODE = /\b([0-9A-HJKMNP-TV-Z]{9})\b/;

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const read = new Set<ParsedMail>();
  let refusals = 0;
  let refusalCode = 451;
  let holds = 0;
  const held: Array<() => void> = [];
  const server = new SMTPServer({
    onRcptTo(_address, _session, callback) {
      if (refusals > 0) {
        refusals--;
        const error = Object.assign(new Error(refusalCode >= 500 ? 'mailbox unavailable' : 'try again later'), {
          responseCode: refusalCode,
        });
        return callback(error);
      }
      callback();
    },
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const accept = () => {
            messages.push(mail);
            callback();
          };
          if (holds > 0) {
            holds--;
            held.push(accept);
          } else accept();
        },
        (error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuseNext(count, responseCode) {
      refusals = count;
      refusalCode = responseCode;
    },
    holdNext(count) {
      holds = count;
    },
    held: () => held.length,
    releaseHeld() {
      for (const accept of held.splice(0)) accept();
    },
    waitFor: (count, timeoutMs?: number) =>
      until(() => `${count} emails (received ${messages.length})`, () => messages.length >= count && messages, { timeoutMs }),
    waitForMailTo: (address, timeoutMs?: number) =>
      until(`an email to ${address}`, () => messages.find((m) => JSON.stringify(m.to).includes(address)), { timeoutMs }),
    nextCodeTo: (address) =>
      until(`an email with a code to ${address}`, () => {
        const mail = messages.find((m) => !read.has(m) && JSON.stringify(m.to).includes(address));
        if (mail) read.add(mail);
        return mail && CODE.exec(mail.text ?? '')?.[1];
      }),
    close: () => {
      for (const accept of held.splice(0)) accept();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
