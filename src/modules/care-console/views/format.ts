/** A time as the console shows it, to the minute and saying its zone: `2026-11-25 18:39 UTC`. */
export function consoleTime(value: string | Date): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return String(value);
  const iso = time.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
