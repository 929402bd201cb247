// The logging the delivery side needs; Fastify's (pino) logger satisfies it.
export interface DeliveryLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}
