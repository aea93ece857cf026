/** A percent-encoded path or segment decoded, or as it came when it does not decode (a stray `%`, bytes that are not UTF-8). */
export function decodedOrAsIs(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
