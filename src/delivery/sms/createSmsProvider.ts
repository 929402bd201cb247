// Where OTP SMS go: one provider chosen by SIGNET_SMS_PROVIDER, each in its own file beside this
// one, or the development SMS log when none is set.
import type { Config } from '../../config.ts';
import type { DeliveryLogger } from '../logger.ts';
import { createDevelopmentSmsLog } from './developmentSmsLog.ts';
import type { SmsProvider } from './smsProvider.ts';
import { createTwilioProvider } from './twilio.ts';

export function createSmsProvider(config: Config, logger: DeliveryLogger): SmsProvider {
  const settings = config.sms;
  switch (settings.provider) {
    case 'twilio':
      return createTwilioProvider(settings);
    case 'development':
      return createDevelopmentSmsLog(config.dataDir, logger);
  }
}
