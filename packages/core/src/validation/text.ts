// Text that UTF-8 cannot carry. JSON's `\uD800` escapes parse into strings with unpaired surrogates,
// which storage and the wire would silently turn into U+FFFD; such input is refused instead. Pure.

/** ES2024's String.prototype.isWellFormed (Node ≥ 20), typed here because the build targets ES2023. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

export function isWellFormedText(text: string): boolean {
  return (text as string & WellFormedCheck).isWellFormed();
}

export const ILL_FORMED_TEXT_MESSAGE = 'must be well-formed Unicode (no unpaired surrogates)';
