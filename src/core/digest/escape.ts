import { safeText } from '../text.js';

// Text into HTML: everything from the agent, the task or files is escaped here and nowhere else
// (HTML injection), after its control characters are made visible (safeText, as on a terminal).

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe as element text and as a quoted attribute value. */
export function esc(text: string): string {
  return safeText(text).replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/** A run id (or any text) as a fragment id: letters, digits, dash and dot only. */
export function anchor(prefix: string, text: string): string {
  return `${prefix}-${text.replace(/[^A-Za-z0-9.-]/g, '_')}`;
}
