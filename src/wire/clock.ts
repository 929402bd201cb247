// The time the service decides by (expiries, freshness, time windows): the system's, or in tests
// one that a test moves forward instead of waiting.

/** The current time. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
