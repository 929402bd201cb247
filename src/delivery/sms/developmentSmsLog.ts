// The development SMS "provider": without SIGNET_SMS_PROVIDER, each message is appended as one JSON
// line to SIGNET_DATA_DIR/sms.log, so a developer reads the code there.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DeliveryLogger } from '../logger.ts';
import type { SmsProvider } from './smsProvider.ts';

export function createDevelopmentSmsLog(dataDir: string, logger: DeliveryLogger): SmsProvider {
  const file = path.join(dataDir, 'sms.log');
  return {
    name: 'development',
    async send({ to, text }) {
      const messageId = randomUUID();
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      fs.appendFileSync(file, JSON.stringify({ time: new Date().toISOString(), to, text, messageId }) + '\n', { mode: 0o600 });
      logger.info({ file, messageId }, `development SMS log: wrote a message to ${to}`);
      return { messageId };
    },
  };
}
