import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { screeningVariants } from './name-normalizer';
import { OfacMatch, ScreenedName } from './ofac-match';
import { errorCode, listFingerprint, LoadedOfacList, loadOfacList, loadOfacListSync } from './ofac-list.files';
import { OFAC_SCREENING_OPTIONS, OfacScreeningOptions } from './ofac-screening.options';
import { OfacListError } from './sdn-csv.parser';

/**
 * Screens a person's name against the individuals of the OFAC SDN list in `OFAC_LIST_DIR`.
 * The list is loaded at start (a missing or malformed list fails the start) and reloaded when its
 * files change: polled by size and modification time, and read once they have stayed the same for
 * one interval so a file still being written is not taken. A reload swaps the whole index in one
 * assignment; a list that fails to load leaves the previous one in place.
 */
@Injectable()
export class OfacScreeningService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OfacScreeningService.name);
  private list: LoadedOfacList | undefined;
  private loadedAt: Date | undefined;
  private timer: NodeJS.Timeout | undefined;
  private seenFingerprint: string | undefined;
  private failedFingerprint: string | undefined;
  private checking = false;

  constructor(@Inject(OFAC_SCREENING_OPTIONS) private readonly options: OfacScreeningOptions) {}

  onModuleInit(): void {
    const dir = this.options.listDir;
    if (!dir) return;
    try {
      this.list = loadOfacListSync(dir);
      this.loadedAt = new Date();
    } catch (error: unknown) {
      throw new OfacListError(`OFAC_LIST_DIR: the SDN list cannot be loaded (${describe(error)})`);
    }
    this.logLoaded('loaded');
    this.timer = setInterval(() => void this.checkForChanges(), this.options.reloadIntervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** True when a list is configured and loaded. Without one, `screen` finds nothing. */
  isEnabled(): boolean {
    return this.list !== undefined;
  }

  /** The list in use: its SDN individuals, when it was (re)loaded and when its files were last modified; undefined without a list. */
  loadedList(): { entries: number; loadedAt: Date; modifiedAt: Date } | undefined {
    return this.list && this.loadedAt ? { entries: this.list.index.stats.individuals, loadedAt: this.loadedAt, modifiedAt: this.list.modifiedAt } : undefined;
  }

  /** The best SDN individual name scoring at least the threshold (scored with and without a middle name), or null. */
  screen(name: ScreenedName): OfacMatch | null {
    return this.list?.index.search(screeningVariants(name), this.options.matchThreshold) ?? null;
  }

  /** One poll: true when a changed list was loaded. Called by the timer; tests call it directly. */
  async checkForChanges(): Promise<boolean> {
    const dir = this.options.listDir;
    if (!dir || this.checking) return false;
    this.checking = true;
    let fingerprint: string | undefined;
    try {
      fingerprint = await listFingerprint(dir);
      const settled = fingerprint === this.seenFingerprint;
      this.seenFingerprint = fingerprint;
      if (fingerprint === this.list?.fingerprint || !settled || fingerprint === this.failedFingerprint) return false;
      this.list = await loadOfacList(dir, fingerprint);
      this.loadedAt = new Date();
      this.failedFingerprint = undefined;
      this.logLoaded('reloaded');
      return true;
    } catch (error: unknown) {
      this.failedFingerprint = fingerprint;
      this.logger.warn(`OFAC list reload failed, the previous list stays in use: ${describe(error)}`);
      return false;
    } finally {
      this.checking = false;
    }
  }

  private logLoaded(what: string): void {
    const stats = this.list?.index.stats;
    if (stats) this.logger.log(`OFAC list ${what}: ${stats.individuals} individuals, ${stats.names} names (${stats.aliases} aliases)`);
  }
}

/** Why a list failed, without any field of it: parser messages name file and record only. */
function describe(error: unknown): string {
  return error instanceof OfacListError ? error.message : errorCode(error);
}
