/** Longest user message accepted, in characters (UTF-16 code units, as JavaScript counts them). */
export const MAX_MESSAGE_CHARS = 32_000;
