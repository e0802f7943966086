// A run's warnings as codes with their words: what they are is read from the code (the dashboard's
// urgency among it), never from the words. Pure.

/** Each warning's code, and whether the dashboard says it as urgent. */
export const NOTICES = {
  'wrong-conversation': false,
  overage: true,
  'notify-failing': true,
  'view-refused': false,
  /** Written by a version before codes: words alone. */
  other: false,
} as const;

export type NoticeCode = keyof typeof NOTICES;

export interface Notice {
  code: NoticeCode;
  text: string;
}

export const isUrgent = (n: Notice): boolean => NOTICES[n.code];

export const isNoticeCode = (v: unknown): v is NoticeCode =>
  typeof v === 'string' && Object.hasOwn(NOTICES, v);

/** Warnings a summary written before codes holds (words alone), as notices. */
export function legacyNotices(v: readonly string[]): Notice[] {
  return v.map((text) => ({ code: 'other', text }));
}
