export const OFAC_SCREENING_OPTIONS = Symbol('OFAC_SCREENING_OPTIONS');

export interface OfacScreeningOptions {
  /** Folder holding `sdn.csv` and `alt.csv`; undefined: screening is off. */
  readonly listDir: string | undefined;
  /** The lowest score that is a match, in (0, 1]. */
  readonly matchThreshold: number;
  /** How often the files' size and modification time are checked. */
  readonly reloadIntervalMs: number;
}

/** Treasury publishes a few times a week: a stat of two files every 30 s is cheap and soon enough. */
export const DEFAULT_RELOAD_INTERVAL_MS = 30_000;
