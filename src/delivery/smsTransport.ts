// Sends SMS. Providers plug in behind SmsTransport; without one (SIGNET_SMS_PROVIDER unset) the
// development SMS log appends each message as a JSON line to SIGNET_DATA_DIR/sms.log.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { DeliveryLogger } from './logger.ts';

export interface SmsTransport {
  send(sms: { to: string; text: string }): Promise<{ messageId: string }>;
}

export function createSmsTransport(config: Config, logger: DeliveryLogger): SmsTransport {
  const file = path.join(config.dataDir, 'sms.log');
  return {
    async send({ to, text }) {
      const messageId = randomUUID();
      fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      fs.appendFileSync(file, JSON.stringify({ time: new Date().toISOString(), to, text, messageId }) + '\n', { mode: 0o600 });
      logger.info({ file, messageId }, `development SMS log: wrote a message to ${to}`);
      return { messageId };
    },
  };
}
