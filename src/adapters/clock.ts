// The only clock: everything else takes `now` as a value.
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
