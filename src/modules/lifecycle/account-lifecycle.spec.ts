import * as sut from './account-lifecycle';
import type { LifecycleAccount, LifecycleCard } from './account-lifecycle';

const NOW = new Date('2026-03-30T10:00:00Z');
const ACTIVATED = new Date('2026-01-05T10:00:00Z');

function account(overrides: Partial<LifecycleAccount> = {}): LifecycleAccount {
  return {
    id: 'acc-1',
    partnerId: 'acme',
    programCode: 'sandbox',
    status: 'normal',
    statusReason: null,
    kycPendingGate: 'none',
    accountCycleDay: 5,
    activatedAt: ACTIVATED,
    closedAt: null,
    restoreStatus: null,
    restoreStatusReason: null,
    unblockRunId: null,
    unblockAttempt: 0,
    ...overrides,
  };
}

const card = (id: string, status: LifecycleCard['status']): LifecycleCard => ({ id, status });
const holder = { userId: 'user-1', firstName: 'José', lastName: "O'Brien" };
const refused = { key: 'CARE_NOT_APPLICABLE' };
const after = (a: LifecycleAccount, t: sut.Transition) => ({ ...a, ...t.patch });
const eventTypes = (t: sut.Transition) => t.events.map((e) => `${e.eventType}:${String(e.data.reason)}`);

describe('account lifecycle', () => {
  describe('status rules', () => {
    it('normal needs a bill cycle day and no KYC gate', () => {
      expect(sut.activatedStatus({ kycPendingGate: 'none', accountCycleDay: 3 })).toBe('normal');
      expect(sut.activatedStatus({ kycPendingGate: 'none', accountCycleDay: null })).toBe('pending');
      expect(sut.activatedStatus({ kycPendingGate: 'manual', accountCycleDay: 3 })).toBe('pending');
    });

    it('the cycle day is the UTC day of completion, capped at 28', () => {
      expect(sut.cycleDayOf(new Date('2026-03-05T23:59:00Z'))).toBe(5);
      expect(sut.cycleDayOf(new Date('2026-03-30T00:00:00Z'))).toBe(28);
    });
  });

  describe('what care may do', () => {
    const states: Array<[string, LifecycleAccount]> = [
      ['normal', account()],
      ['pending, KYC referred', account({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' })],
      ['held for OFAC review', account({ status: 'pending', statusReason: 'ofacReview', accountCycleDay: null, activatedAt: null })],
      ['locked by care', account({ status: 'locked', statusReason: 'careLock', restoreStatus: 'normal' })],
      ['fraud-blocked', account({ status: 'locked', statusReason: 'fraudBlock', restoreStatus: 'normal' })],
      ['closed', account({ status: 'closed', closedAt: NOW })],
    ];
    const offered = (a: LifecycleAccount) => sut.ACCOUNT_CARE_OPERATIONS.filter((op) => sut.careRefusal(op, a) === null);

    it.each<[string, LifecycleAccount, string[]]>([
      ['normal', account(), ['lock', 'fraudBlock', 'close']],
      ['pending, KYC referred', states[1]![1], ['lock', 'fraudBlock', 'kycGateClear', 'close']],
      ['held for OFAC review', states[2]![1], ['ofacClear', 'close']],
      ['locked by care', states[3]![1], ['unlock', 'close']],
      ['fraud-blocked', states[4]![1], ['removeFraudBlock', 'close']],
      ['closed', states[5]![1], []],
    ])('an account %s: care may %j', (_label, a, expected) => {
      expect(offered(a)).toEqual(expected);
    });

    it('names the reason of every refusal', () => {
      expect(sut.careRefusal('unlock', account())).toBe('The account is not locked by care.');
      expect(sut.careRefusal('unlock', states[4]![1])).toBe('The account is locked by a fraud block: remove the fraud block instead.');
      expect(sut.careRefusal('lock', states[2]![1])).toBe('The account is held for OFAC review.');
      expect(sut.careRefusal('kycGateClear', account())).toBe('The account has no manual KYC gate to clear.');
      expect(sut.cardReplacementRefusal(account(), card('c', 'replaced'))).toBe('A replaced card cannot be replaced.');
      expect(sut.cardReplacementRefusal(states[5]![1], card('c', 'active'))).toBe('The account is closed.');
    });

    it.each(states)('the transitions refuse an account %s exactly where careRefusal gives a reason', (_label, a) => {
      const cards = [card('a', 'active')];
      const run: Record<sut.AccountCareOperation, () => unknown> = {
        lock: () => sut.lock(a),
        unlock: () => sut.unlock(a),
        fraudBlock: () => sut.fraudBlock(a, cards),
        removeFraudBlock: () => sut.removeFraudBlock(a, 'run'),
        ofacClear: () => sut.clearOfac(a),
        kycGateClear: () => sut.clearKycGate(a, cards),
        close: () => sut.close(a, cards, NOW),
      };
      for (const op of sut.ACCOUNT_CARE_OPERATIONS) {
        const refusedHere = (() => {
          try {
            run[op]();
            return false;
          } catch (error) {
            expect(error).toMatchObject(refused);
            return true;
          }
        })();
        expect({ op, refused: refusedHere }).toEqual({ op, refused: sut.careRefusal(op, a) !== null });
      }
      for (const status of ['active', 'inactive', 'blocked', 'replaced', 'closed'] as const) {
        const replaced = (() => {
          try {
            sut.replaceCard(a, card('o', status), holder, null, 'n');
            return true;
          } catch {
            return false;
          }
        })();
        expect({ status, replaced }).toEqual({ status, replaced: sut.cardReplacementRefusal(a, card('o', status)) === null });
      }
    });
  });

  describe('a new enrollment decided at once', () => {
    it('pass: normal, cycle day, activated, card', () => {
      expect(sut.decide('pass', false, NOW)).toEqual({
        state: { status: 'normal', statusReason: null, kycPendingGate: 'none', accountCycleDay: 28, activatedAt: NOW },
        issueCard: true,
        answer: 'completed',
        reason: 'enrollmentCompleted',
      });
    });

    it('refer: activated yet pending behind the manual gate, under review, card issued (inactive)', () => {
      const d = sut.decide('refer', false, NOW);
      expect(d.state).toEqual({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual', accountCycleDay: 28, activatedAt: NOW });
      expect(d.issueCard).toBe(true);
    });

    it('OFAC hold: pending ofacReview, no cycle day, no card, held', () => {
      expect(sut.decide('ofacHold', false, NOW)).toEqual({
        state: { ...sut.PENDING_STATE, statusReason: 'ofacReview' },
        issueCard: false,
        answer: 'held',
        reason: 'kyc.ofacHold',
      });
    });

    it('no bill cycle date: pending, no card, incomplete (the identical retry completes it)', () => {
      expect(sut.decide('pass', true, NOW)).toEqual({ state: sut.PENDING_STATE, issueCard: false, answer: 'incomplete', reason: 'kyc.pass' });
    });
  });

  describe('phased enrollment', () => {
    const pending = account({ status: 'pending', accountCycleDay: null, activatedAt: null });

    it('KYC pass changes nothing; refer opens the gate; hold sets ofacReview; each with accountUpdated when it changes', () => {
      expect(sut.decideKyc(pending, 'pass')).toMatchObject({ patch: {}, events: [] });
      expect(sut.decideKyc(pending, 'refer')).toMatchObject({ patch: { kycPendingGate: 'manual', statusReason: 'underReview' } });
      expect(eventTypes(sut.decideKyc(pending, 'ofacHold'))).toEqual(['accountUpdated:kyc.ofacHold']);
    });

    it('the cycle day is assigned once, announced only once the account is activated (GET shows none before)', () => {
      expect(sut.assignCycleDay(pending, NOW)).toMatchObject({ patch: { accountCycleDay: 28 }, events: [] });
      expect(sut.assignCycleDay(account({ accountCycleDay: 3 }), NOW)).toMatchObject({ patch: {}, events: [] });
    });

    it('activation: normal with a cycle day and no gate; pending behind a gate; once only', () => {
      expect(sut.activate({ ...pending, accountCycleDay: 9 }, [], NOW).patch).toEqual({ activatedAt: NOW, status: 'normal' });
      expect(sut.activate({ ...pending, accountCycleDay: 9, kycPendingGate: 'manual' }, [], NOW).patch).toEqual({ activatedAt: NOW });
      expect(sut.activate(account(), [], NOW).patch).toEqual({});
    });

    it('the enrollment card: active, inactive behind a gate, never twice, never on a closed account', () => {
      const issued = sut.issueCard(pending, [], holder, null, 'card-1');
      expect(issued.issue).toEqual([
        { id: 'card-1', accountId: 'acc-1', userId: 'user-1', status: 'active', embossedName: "JOSE O'BRIEN", embossedBusinessName: null },
      ]);
      // Never activated: the card is not shown yet, so not announced (CONTRACT section 6); activation announces it.
      expect(issued.events).toEqual([]);
      expect(sut.activate({ ...pending, accountCycleDay: 9 }, [card('card-1', 'active')], NOW).events.map((e) => e.data)).toEqual([
        expect.objectContaining({ status: 'normal', accountCycleDay: 9, previous: expect.objectContaining({ status: 'pending', accountCycleDay: null }) }),
        { paymentIdentifier: 'card-1', status: 'active', previousStatus: null, reason: 'issued' },
      ]);
      // A card issued on an account already activated (a replacement) is announced at once.
      expect(sut.issueCard(account({ accountCycleDay: 9 }), [], holder, null, 'card-3').events.map((e) => e.data)).toEqual([
        { paymentIdentifier: 'card-3', status: 'active', previousStatus: null, reason: 'issued' },
      ]);
      expect(sut.issueCard({ ...pending, kycPendingGate: 'manual' }, [], holder, 'Acme Ltd', 'card-2').issue[0]).toMatchObject({
        status: 'inactive',
        embossedBusinessName: 'ACME LTD',
      });
      expect(sut.issueCard(pending, [card('c', 'active')], holder, null, 'x').issue).toEqual([]);
      expect(sut.issueCard({ ...pending, status: 'closed' }, [], holder, null, 'x').issue).toEqual([]);
    });

    it('a card issued inactive behind a gate that care cleared before completion is active once the account is normal, and announced so', () => {
      // Care cleared the gate while the enrollment was interrupted after its card (pending, gate none).
      const t = sut.activate({ ...pending, accountCycleDay: 9 }, [card('card-1', 'inactive')], NOW);
      expect(t.cardMoves).toEqual([{ id: 'card-1', from: 'inactive', to: 'active' }]);
      expect(t.events.map((e) => e.data)).toEqual([
        expect.objectContaining({ status: 'normal' }),
        { paymentIdentifier: 'card-1', status: 'active', previousStatus: null, reason: 'issued' },
      ]);
      // Still behind the gate: it stays inactive.
      expect(sut.activate({ ...pending, accountCycleDay: 9, kycPendingGate: 'manual' }, [card('card-1', 'inactive')], NOW).cardMoves).toEqual([]);
    });

    it('OFAC clearance lifts the hold only from a held account', () => {
      expect(sut.clearOfac(account({ status: 'pending', statusReason: 'ofacReview' })).patch).toEqual({ statusReason: null });
      expect(() => sut.clearOfac(account())).toThrow(expect.objectContaining(refused));
      expect(() => sut.clearOfac(account({ status: 'locked', statusReason: 'ofacReview' }))).toThrow(expect.objectContaining(refused));
    });

    it('a limit filled while pending: closed, limitExceeded, with any usable card an interrupted enrollment issued', () => {
      expect(sut.declineForLimit(pending, [], NOW).patch).toEqual({ status: 'closed', statusReason: 'limitExceeded', kycPendingGate: 'none', closedAt: NOW });
      expect(sut.declineForLimit({ ...pending, kycPendingGate: 'manual' }, [], NOW).patch).toMatchObject({ kycPendingGate: 'none' });
      const t = sut.declineForLimit(pending, [card('a', 'active'), card('b', 'replaced'), card('c', 'inactive')], NOW);
      expect(t.cardMoves.map((m) => [m.id, m.to])).toEqual([
        ['a', 'closed'],
        ['c', 'closed'],
      ]);
    });
  });

  describe('care lock and unlock', () => {
    it('lock keeps the state it found; unlock restores it', () => {
      const referred = account({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' });
      const locked = after(referred, sut.lock(referred));
      expect(locked).toMatchObject({ status: 'locked', statusReason: 'careLock', restoreStatus: 'pending', restoreStatusReason: 'underReview' });
      const unlocked = sut.unlock(locked);
      expect(unlocked.patch).toEqual({
        status: 'pending',
        statusReason: 'underReview',
        kycPendingGate: 'manual',
        restoreStatus: null,
        restoreStatusReason: null,
      });
      expect(eventTypes(unlocked)).toEqual(['accountUpdated:care.unlock']);
    });

    it('a lock with nothing kept unlocks to the resting state', () => {
      expect(sut.unlock(account({ status: 'locked', statusReason: 'careLock' })).patch).toMatchObject({ status: 'normal', statusReason: null });
      expect(sut.unlock(account({ status: 'locked', statusReason: 'careLock', activatedAt: null })).patch).toMatchObject({ status: 'pending' });
    });

    it.each([
      ['closed', account({ status: 'closed' })],
      ['already locked', account({ status: 'locked', statusReason: 'careLock' })],
      ['held for OFAC review', account({ status: 'pending', statusReason: 'ofacReview' })],
    ])('lock refuses an account %s', (_label, a) => {
      expect(() => sut.lock(a)).toThrow(expect.objectContaining(refused));
    });

    it.each([
      ['normal', account()],
      ['fraud-blocked', account({ status: 'locked', statusReason: 'fraudBlock' })],
    ])('unlock refuses an account %s', (_label, a) => {
      expect(() => sut.unlock(a)).toThrow(expect.objectContaining(refused));
    });
  });

  describe('close', () => {
    it('closes the account and every card not already replaced or closed', () => {
      const cards = [card('a', 'active'), card('b', 'blocked'), card('c', 'replaced'), card('d', 'closed'), card('e', 'inactive')];
      const t = sut.close(account(), cards, NOW);
      expect(t.patch).toEqual({ status: 'closed', statusReason: null, kycPendingGate: 'none', closedAt: NOW });
      // A KYC review ends with the account: closed, it is no longer active for the limits.
      expect(sut.close(account({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' }), [], NOW).patch).toMatchObject({
        kycPendingGate: 'none',
      });
      expect(t.cardMoves).toEqual([
        { id: 'a', from: 'active', to: 'closed' },
        { id: 'b', from: 'blocked', to: 'closed' },
        { id: 'e', from: 'inactive', to: 'closed' },
      ]);
      expect(eventTypes(t)).toEqual(['accountUpdated:care.close', 'cardUpdated:care.close', 'cardUpdated:care.close', 'cardUpdated:care.close']);
    });

    it('refuses a closed account', () => {
      expect(() => sut.close(account({ status: 'closed' }), [], NOW)).toThrow(expect.objectContaining(refused));
    });
  });

  describe('fraud block, its removal, and the unblock run', () => {
    const cards = [card('a', 'active'), card('i', 'inactive'), card('r', 'replaced')];

    it('fraud block locks the account and blocks usable cards', () => {
      const t = sut.fraudBlock(account(), cards);
      expect(t.patch).toMatchObject({ status: 'locked', statusReason: 'fraudBlock', unblockRunId: null });
      expect(t.cardMoves.map((m) => [m.id, m.to])).toEqual([
        ['a', 'blocked'],
        ['i', 'blocked'],
      ]);
      expect(() => sut.fraudBlock(account({ status: 'locked', statusReason: 'careLock' }), cards)).toThrow(expect.objectContaining(refused));
    });

    it('removal: healthy and normal whatever it was before (pending without a cycle day), cards still blocked, run started', () => {
      const blocked = account({ status: 'locked', statusReason: 'fraudBlock', kycPendingGate: 'manual' });
      const t = sut.removeFraudBlock(blocked, 'run-1');
      expect(t.patch).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none', unblockRunId: 'run-1', unblockAttempt: 0 });
      expect(t.cardMoves).toEqual([]);
      expect(sut.removeFraudBlock({ ...blocked, accountCycleDay: null }, 'run-2').patch).toMatchObject({ status: 'pending' });
      expect(() => sut.removeFraudBlock(account({ status: 'locked', statusReason: 'careLock' }), 'x')).toThrow(expect.objectContaining(refused));
    });

    it('an attempt applies only to the latest run, once, while the account is not blocked or closed again', () => {
      const live = account({ unblockRunId: 'run-1', unblockAttempt: 1 });
      expect(sut.unblockApplies(live, 'run-1', 2)).toBe(true);
      expect(sut.unblockApplies(live, 'run-1', 1)).toBe(false);
      expect(sut.unblockApplies(live, 'run-0', 2)).toBe(false);
      expect(sut.unblockApplies({ ...live, status: 'locked' }, 'run-1', 2)).toBe(false);
      expect(sut.unblockApplies({ ...live, status: 'closed' }, 'run-1', 2)).toBe(false);
    });

    it("an attempt of the latest run that finds care's lock waits for the unlock; a fraud block or a closure ends the run", () => {
      const live = account({ unblockRunId: 'run-1', unblockAttempt: 1 });
      expect(sut.unblockWaitsForUnlock({ ...live, status: 'locked', statusReason: 'careLock' }, 'run-1', 2)).toBe(true);
      expect(sut.unblockWaitsForUnlock({ ...live, status: 'locked', statusReason: 'careLock' }, 'run-1', 1)).toBe(false);
      expect(sut.unblockWaitsForUnlock({ ...live, status: 'locked', statusReason: 'careLock' }, 'run-0', 2)).toBe(false);
      expect(sut.unblockWaitsForUnlock({ ...live, status: 'locked', statusReason: 'fraudBlock' }, 'run-1', 2)).toBe(false);
      expect(sut.unblockWaitsForUnlock({ ...live, status: 'closed' }, 'run-1', 2)).toBe(false);
      expect(sut.unblockWaitsForUnlock(live, 'run-1', 2)).toBe(false);
    });

    it('success: blocked cards active (inactive behind a gate); failure recorded; the last failure opens the manual gate', () => {
      const live = account({ unblockRunId: 'run-1' });
      expect(sut.unblockCards(live, [card('a', 'blocked')], 1).cardMoves).toEqual([{ id: 'a', from: 'blocked', to: 'active' }]);
      expect(sut.unblockCards({ ...live, kycPendingGate: 'manual' }, [card('a', 'blocked')], 1).cardMoves[0]?.to).toBe('inactive');
      expect(sut.unblockFailed(live, 2)).toMatchObject({ patch: { unblockAttempt: 2 }, events: [] });
      const exhausted = sut.unblockExhausted(live, 3);
      expect(exhausted.patch).toEqual({ unblockAttempt: 3, kycPendingGate: 'manual', statusReason: 'underReview' });
      expect(eventTypes(exhausted)).toEqual(['accountUpdated:care.unblockFailed']);
    });

    it('a run that ends while care holds its lock leaves the review for unlock: nothing partners see changes until then, and unlock opens the gate', () => {
      const live = account({ unblockRunId: 'run-1', unblockAttempt: 0 });
      const locked = after(live, sut.lock(live));
      const exhausted = sut.unblockExhausted(locked, 1);
      expect(exhausted.patch).toEqual({ unblockAttempt: 1, restoreStatusReason: 'underReview' });
      expect(exhausted.events).toEqual([]);
      const unlocked = sut.unlock(after(locked, exhausted));
      expect(unlocked.patch).toEqual({
        status: 'normal',
        statusReason: 'underReview',
        kycPendingGate: 'manual',
        restoreStatus: null,
        restoreStatusReason: null,
      });
      expect(eventTypes(unlocked)).toEqual(['accountUpdated:care.unlock']);
    });

    describe('unblockStep: every step within the window (SERVICE.md: up to 3 retries, all within 15 minutes)', () => {
      const DELAYS = [60_000, 240_000, 540_000];
      const END = 840_000;
      const run = (attempt: number, deadlineMs = END) => ({ runId: 'run-1', attempt, deadlineMs });
      const live = account({ unblockRunId: 'run-1', unblockAttempt: 0 });
      const locked = after(live, sut.lock(live));

      it.each([
        ['tries inside the window', live, run(1), 60_000, undefined, { step: 'try' }],
        ['tries just past its end (the queue polls)', live, run(3), END + sut.UNBLOCK_LATENESS_MS, undefined, { step: 'try' }],
        ['ends a run picked up later than that', live, run(3), END + sut.UNBLOCK_LATENESS_MS + 1, undefined, { step: 'exhaust' }],
        ['skips an attempt already handled', account({ unblockRunId: 'run-1', unblockAttempt: 1 }), run(1), 60_000, undefined, { step: 'skip' }],
        ['skips a superseded run', account({ unblockRunId: 'run-2' }), run(1), 60_000, undefined, { step: 'skip' }],
        ['skips on a closed account', account({ unblockRunId: 'run-1', status: 'closed' }), run(1), 60_000, undefined, { step: 'skip' }],
        ["waits for care's lock, the first delay", locked, run(1), 60_000, undefined, { step: 'wait', afterMs: 60_000 }],
        ["waits for care's lock, cut to the window's end", locked, run(2), END - 10_000, undefined, { step: 'wait', afterMs: 10_000 }],
        ["ends the run when care's lock holds at the end", locked, run(2), END, undefined, { step: 'exhaust' }],
        ["waits when care's lock came during the processor call", locked, run(1), 61_000, true, { step: 'wait', afterMs: 60_000 }],
        ['ends the run when that lock holds at the end', locked, run(3), END + 500, false, { step: 'exhaust' }],
        ['succeeds, even just past the end', live, run(3), END + 500, true, { step: 'succeed' }],
        ['retries after a failure, at the next delay', live, run(1), 61_000, false, { step: 'retry', afterMs: 240_000 }],
        ["retries after a failure, cut to the window's end", live, run(2), 600_000, false, { step: 'retry', afterMs: 240_000 }],
        ['ends the run after a failure at the end, retries left or not', live, run(1), END, false, { step: 'exhaust' }],
        ['ends the run after the last failure', live, run(3), END - 1, false, { step: 'exhaust' }],
        ['keeps the delays for a run without a window', live, run(1, Number.POSITIVE_INFINITY), 10 * END, false, { step: 'retry', afterMs: 240_000 }],
      ])('%s', (_label, a, attempt, now, outcome, step) => {
        expect(sut.unblockStep(a, attempt, now, DELAYS, outcome)).toEqual(step);
      });
    });
  });

  describe('KYC gate clearance', () => {
    it('gate none, normal, inactive and blocked cards active', () => {
      const gated = account({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' });
      const t = sut.clearKycGate(gated, [card('i', 'inactive'), card('b', 'blocked'), card('r', 'replaced')]);
      expect(t.patch).toEqual({ kycPendingGate: 'none', statusReason: null, status: 'normal' });
      expect(t.cardMoves.map((m) => m.id)).toEqual(['i', 'b']);
    });

    it('an enrollment that never completed stays pending and its cards untouched', () => {
      const t = sut.clearKycGate(account({ status: 'pending', kycPendingGate: 'manual', activatedAt: null, accountCycleDay: null }), [card('i', 'inactive')]);
      expect(t.patch.status).toBe('pending');
      expect(t.cardMoves).toEqual([]);
    });

    it.each([
      ['no gate', account()],
      ['locked', account({ status: 'locked', statusReason: 'careLock', kycPendingGate: 'manual' })],
      ['closed', account({ status: 'closed', kycPendingGate: 'manual' })],
    ])('refuses an account with %s', (_label, a) => {
      expect(() => sut.clearKycGate(a, [])).toThrow(expect.objectContaining(refused));
    });
  });

  describe('card replacement', () => {
    it('the old card replaced (pointing at the new), the new one issued with the current names', () => {
      const t = sut.replaceCard(account(), card('old', 'active'), holder, null, 'new');
      expect(t.cardMoves).toEqual([{ id: 'old', from: 'active', to: 'replaced', replacedBy: 'new' }]);
      expect(t.issue).toEqual([
        { id: 'new', accountId: 'acc-1', userId: 'user-1', status: 'active', embossedName: "JOSE O'BRIEN", embossedBusinessName: null },
      ]);
      expect(t.events.map((e) => e.data)).toEqual([
        { paymentIdentifier: 'old', status: 'replaced', previousStatus: 'active', reason: 'care.replace', replacedBy: 'new' },
        { paymentIdentifier: 'new', status: 'active', previousStatus: null, reason: 'care.replace', replaces: 'old' },
      ]);
    });

    it('the new card is blocked under a fraud block, inactive behind a gate or when the old one was', () => {
      expect(sut.replaceCard(account({ status: 'locked', statusReason: 'fraudBlock' }), card('o', 'blocked'), holder, null, 'n').issue[0]?.status).toBe(
        'blocked',
      );
      expect(sut.replaceCard(account({ kycPendingGate: 'manual' }), card('o', 'active'), holder, null, 'n').issue[0]?.status).toBe('inactive');
      expect(sut.replaceCard(account(), card('o', 'inactive'), holder, null, 'n').issue[0]?.status).toBe('inactive');
    });

    it.each([
      ['a closed account', account({ status: 'closed' }), card('o', 'active')],
      ['a replaced card', account(), card('o', 'replaced')],
      ['a closed card', account(), card('o', 'closed')],
    ])('refuses %s', (_label, a, old) => {
      expect(() => sut.replaceCard(a, old, holder, null, 'n')).toThrow(expect.objectContaining(refused));
    });
  });
});
