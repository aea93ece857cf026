import type { AuditView } from '../../audit/care-audit.service';
import { ACCOUNT_CARE_OPERATIONS, AccountCareOperation, cardReplacementRefusal, careRefusal, CareState } from '../../lifecycle/account-lifecycle';
import type { AccountPage, BusinessFact, SearchHit } from '../care-console.service';
import type { IdentityRow } from '../identities';
import { BUSINESS_REVEALABLE, BusinessRevealField, OperationName, OPERATIONS, REVEALABLE, RevealField, SEARCH_KINDS, SearchKind, Staff } from '../staff';
import { consoleTime } from './format';
import { html, SafeHtml } from './html';

const SEARCH_LABELS: Record<SearchKind, string> = {
  accountIdentifier: 'Account identifier',
  paymentIdentifier: 'Payment identifier (card)',
  ssn: 'Full SSN or ITIN (9 digits)',
  phone: 'Full phone number',
};

interface Frame {
  title: string;
  staff?: Staff;
  csrf?: string;
  notice?: string | null;
  error?: string | null;
}

export function layout(frame: Frame, body: SafeHtml): string {
  const signOut =
    frame.staff && frame.csrf
      ? html`<span>Signed in as <strong>${frame.staff.email ?? frame.staff.subject}</strong></span>
        <form class="inline" method="post" action="/care/sign-out"><input type="hidden" name="_csrf" value="${frame.csrf}"><button type="submit">Sign out</button></form>`
      : null;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Care console</title>
<link rel="stylesheet" href="/care/assets/console.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="bar"><a href="/care">Care console</a><div class="who">${signOut}</div></header>
<main id="main">
${frame.notice ? html`<p class="notice" role="status">${frame.notice}</p>` : null}
${frame.error ? html`<p class="error" role="alert">${frame.error}</p>` : null}
${body}
</main>
</body>
</html>`.value;
}

const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;
const status = (value: string | null) => (value === null ? html`<span>—</span>` : html`<span class="status status-${value}">${value}</span>`);

export function signInPage(options: { csrf: string | null; provider: boolean; sandbox: boolean; error?: string | null }): string {
  const body = html`<h1>Sign in</h1>
${options.provider ? html`<section class="card"><p>Care staff sign in with the bank's identity provider.</p><a class="button" href="/care/auth/login">Sign in with the identity provider</a></section>` : null}
${
  options.sandbox && options.csrf
    ? html`<form class="card" method="post" action="/care/sign-in">
  <p>Sandbox: no identity provider is configured. Sign in with the care client's credentials of SERVICE_CONFIG.</p>
  ${csrfField(options.csrf)}
  <label for="clientId">Care client id</label>
  <input id="clientId" name="clientId" autocomplete="username" required>
  <label for="clientSecret">Care client secret</label>
  <input id="clientSecret" name="clientSecret" type="password" autocomplete="current-password" required>
  <label for="staffEmail">Your email (recorded in the audit trail)</label>
  <input id="staffEmail" name="staffEmail" type="email" autocomplete="email" aria-describedby="staffEmailHint">
  <p class="hint" id="staffEmailHint">Optional in the sandbox; without it the audit trail names the care client.</p>
  <button type="submit">Sign in</button>
</form>`
    : null
}`;
  return layout({ title: 'Sign in', error: options.error }, body);
}

/** Posted, not a GET: a full SSN or phone number never goes into a URL (history, proxies, referrers). */
export function searchForm(kind: SearchKind, q: string, csrf: string): SafeHtml {
  return html`<form class="card" method="post" action="/care/search" role="search">
  ${csrfField(csrf)}
  <div class="row">
    <div><label for="kind">Search by</label>
      <select id="kind" name="kind">${SEARCH_KINDS.map((k) => html`<option value="${k}"${k === kind ? html` selected` : null}>${SEARCH_LABELS[k]}</option>`)}</select></div>
    <div><label for="q">Value</label><input id="q" name="q" value="${q}" required autocomplete="off" aria-describedby="qHint"></div>
  </div>
  <p class="hint" id="qHint">Exact values only: a full identifier, SSN or phone number (no partial search).</p>
  <button type="submit">Search</button>
</form>`;
}

export function searchPage(frame: Frame & { csrf: string }, kind: SearchKind, q: string, hits: SearchHit[] | null): string {
  const results =
    hits === null
      ? null
      : hits.length === 0
        ? html`<p role="status">No account found.</p>`
        : html`<h2 id="results">Accounts found</h2><div class="table-wrap"><table aria-labelledby="results"><thead><tr><th scope="col">Account</th><th scope="col">Program</th><th scope="col">Type</th><th scope="col">Status</th></tr></thead><tbody>
${hits.map((hit) => html`<tr><td class="id"><a href="/care/accounts/${hit.accountIdentifier}">${hit.accountIdentifier}</a></td><td>${hit.programCode}</td><td>${hit.accountType}</td><td>${status(hit.status)}</td></tr>`)}
</tbody></table></div>`;
  return layout(frame, html`<h1>Find an account</h1>${searchForm(kind, q, frame.csrf)}${results}`);
}

/** A value shown in full on this page: a user's field (userIdentifier), or the business profile's (null). */
export interface Revealed {
  userIdentifier: string | null;
  field: RevealField | BusinessRevealField;
  value: string;
}

/**
 * An operation as the account's state allows it: a link to its confirmation page, or a disabled
 * button described by the reason the lifecycle refuses it (careRefusal), shown beside it.
 */
function opButton(accountId: string, op: OperationName, refusal: string | null, card?: string): SafeHtml {
  if (refusal !== null) {
    const why = `why-${op}${card ? `-${card}` : ''}`;
    return html`<button type="button" class="secondary" disabled aria-describedby="${why}">${OPERATIONS[op].label}</button> <span class="hint why" id="${why}">${refusal}</span>`;
  }
  const href = `/care/accounts/${accountId}/operations/${op}${card ? `?paymentIdentifier=${encodeURIComponent(card)}` : ''}`;
  return html`<a class="button secondary" href="${href}">${OPERATIONS[op].label}</a>`;
}

/** The account's operations: those its state allows, then the others, disabled, each with the reason. */
function accountOperations(accountId: string, state: CareState): SafeHtml {
  const item = (op: AccountCareOperation, refusal: string | null) => html`<li data-operation="${op}">${opButton(accountId, op, refusal)}</li>`;
  const all = ACCOUNT_CARE_OPERATIONS.map((op) => ({ op, refusal: careRefusal(op, state) }));
  const allowed = all.filter(({ refusal }) => refusal === null);
  const refused = all.filter(({ refusal }) => refusal !== null);
  return html`${allowed.length > 0 ? html`<ul class="ops">${allowed.map(({ op }) => item(op, null))}</ul>` : html`<p>No operation applies to the account in its current state.</p>`}
${refused.length > 0 ? html`<h4 id="unavailable">Not available in this state</h4><ul class="ops unavailable" aria-labelledby="unavailable">${refused.map(({ op, refusal }) => item(op, refusal))}</ul>` : null}`;
}

function revealButton(accountId: string, userId: string, field: RevealField, csrf: string): SafeHtml {
  return html`<form class="inline" method="post" action="/care/accounts/${accountId}/users/${userId}/reveal">${csrfField(csrf)}<input type="hidden" name="field" value="${field}"><button type="submit" class="secondary">Reveal ${REVEALABLE[field]}</button></form>`;
}

/** One business profile value: as the page lists it (masked where personal), or revealed, with its reveal button while masked. */
function businessValue(accountId: string, fact: BusinessFact, revealed: Revealed | null, csrf: string): SafeHtml {
  if (fact.reveal === null) return html`${fact.value}`;
  if (revealed?.userIdentifier === null && revealed.field === fact.reveal)
    return html`<span class="revealed" id="revealed-${fact.reveal}">${revealed.value}</span>`;
  return html`${fact.value} <form class="inline" method="post" action="/care/accounts/${accountId}/businessProfile/reveal">${csrfField(csrf)}<input type="hidden" name="field" value="${fact.reveal}"><button type="submit" class="secondary">Reveal ${BUSINESS_REVEALABLE[fact.reveal]}</button></form>`;
}

/** One identity: masked with its reveal button, revealed, or masked alone when the mask shows all that is stored. */
function identityCell(accountId: string, userId: string, identity: IdentityRow, shown: (field: RevealField) => string | null, csrf: string): SafeHtml {
  const value = identity.field ? shown(identity.field) : null;
  if (identity.field && value) return html`${identity.label}: <span class="revealed" id="revealed-${identity.field}">${value}</span>`;
  const masked = html`${identity.label}: <span id="masked-${identity.field ?? 'ssn-last-four'}">${identity.masked}</span>`;
  return identity.field ? html`${masked} ${revealButton(accountId, userId, identity.field, csrf)}` : masked;
}

function auditRows(entries: AuditView[]): SafeHtml {
  if (entries.length === 0) return html`<tr><td colspan="5">No entry yet.</td></tr>`;
  return html`${[...entries].reverse().map((e) => html`<tr><td>${consoleTime(e.at)}</td><td>${e.action}</td><td>${e.staff ? html`${e.staff.email ?? ''}<br><span class="id">${e.staff.subject}</span>` : e.actor}</td><td>${e.reason ?? ''}</td><td>${e.before.status} → ${e.after.status}${e.action === 'pii.reveal' ? html`<br>${String(e.detail.field)}` : null}</td></tr>`)}`;
}

export function accountPage(frame: Frame & { staff: Staff; csrf: string }, page: AccountPage, revealed: Revealed | null): string {
  const { account, paymentInstruments } = page.view;
  const id = account.accountIdentifier;
  const body = html`<h1>Account <span class="id">${id}</span></h1>
<section class="card" aria-labelledby="state"><h2 id="state">State</h2>
<dl class="facts">
  <div><dt>Status</dt><dd id="account-status">${status(account.status)}</dd></div>
  <div><dt>Status reason</dt><dd id="account-status-reason">${account.statusReason ?? '—'}</dd></div>
  <div><dt>KYC pending gate</dt><dd>${account.kycPendingGate}</dd></div>
  <div><dt>Cycle day</dt><dd>${account.accountCycleDay ?? '—'}</dd></div>
  <div><dt>Program</dt><dd>${account.programCode}</dd></div>
  <div><dt>Type</dt><dd>${account.accountType}</dd></div>
  <div><dt>Created</dt><dd>${consoleTime(account.createdDateTime)}</dd></div>
  <div><dt>Activated</dt><dd>${account.activatedDateTime ? consoleTime(account.activatedDateTime) : '—'}</dd></div>
</dl>
<h3>Operations</h3>
${accountOperations(id, account)}
</section>
<h2 id="users">Users</h2>
<div class="table-wrap"><table aria-labelledby="users"><thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Identity</th><th scope="col">Date of birth</th><th scope="col">Email</th></tr></thead><tbody>
${page.users.map((u) => {
  const shown = (field: RevealField) => (revealed && revealed.userIdentifier === u.userIdentifier && revealed.field === field ? revealed.value : null);
  const dob = shown('dateOfBirth');
  const email = shown('email');
  return html`<tr><td>${u.name}<br><span class="id">${u.userIdentifier}</span></td><td>${u.isPrimaryAccountHolder ? 'primary' : 'secondary'} · ${u.status}</td>
<td>${u.identities.length > 0 ? u.identities.map((identity, i) => html`${i > 0 ? html`<br>` : null}${identityCell(id, u.userIdentifier, identity, shown, frame.csrf)}`) : '—'}</td>
<td>${dob ? html`<span class="revealed" id="revealed-dob">${dob}</span>` : html`${u.dateOfBirthMasked} ${revealButton(id, u.userIdentifier, 'dateOfBirth', frame.csrf)}`}</td><td>${email ? html`<span class="revealed" id="revealed-email">${email}</span>` : u.emailMasked ? html`${u.emailMasked} ${revealButton(id, u.userIdentifier, 'email', frame.csrf)}` : '—'}</td></tr>`;
})}
</tbody></table></div>
<h2 id="cards">Cards</h2>
${
  paymentInstruments.length === 0
    ? html`<p>No card.</p>`
    : html`<div class="table-wrap"><table aria-labelledby="cards"><thead><tr><th scope="col">Payment identifier</th><th scope="col">Last four</th><th scope="col">Status</th><th scope="col">Embossed name</th><th scope="col">Expires</th><th scope="col">Operation</th></tr></thead><tbody>
${paymentInstruments.map((c) => html`<tr><td class="id">${c.paymentIdentifier}</td><td>${c.last4}</td><td>${status(c.status)}</td><td>${c.embossedName}${c.embossedBusinessName ? html`<br>${c.embossedBusinessName}` : null}</td><td>${c.expirationDate}</td><td>${opButton(id, 'replaceCard', cardReplacementRefusal(account, c), c.paymentIdentifier)}</td></tr>`)}
</tbody></table></div>`
}
<h2 id="purses">Purses</h2>
<div class="table-wrap"><table aria-labelledby="purses"><thead><tr><th scope="col">Purse</th><th scope="col">Type</th><th scope="col">Available</th><th scope="col">Ledger</th></tr></thead><tbody>
${account.purses.map((p) => html`<tr><td class="id">${p.purseIdentifier}</td><td>${p.purseType}</td><td>${p.availableBalance} ${p.currency}</td><td>${p.ledgerBalance} ${p.currency}</td></tr>`)}
</tbody></table></div>
<h2 id="business">Business profile</h2>
${page.businessProfile ? html`<dl class="facts">${page.businessProfile.map((fact) => html`<div><dt>${fact.key}</dt><dd>${businessValue(id, fact, revealed, frame.csrf)}</dd></div>`)}</dl>` : html`<p>None.</p>`}
<h2 id="events">Webhook deliveries</h2>
${
  page.events.length === 0
    ? html`<p>No event.</p>`
    : html`<div class="table-wrap"><table aria-labelledby="events"><thead><tr><th scope="col">Occurred</th><th scope="col">Event</th><th scope="col">Delivery</th><th scope="col">Attempts</th><th scope="col">Event id</th></tr></thead><tbody>
${page.events.map((e) => html`<tr><td>${consoleTime(e.occurredDateTime)}</td><td>${e.eventType}</td><td>${status(e.deliveryStatus)}</td><td>${e.attempts}</td><td class="id">${e.eventId}</td></tr>`)}
</tbody></table></div>`
}
<h2 id="audit">Care audit trail</h2>
<div class="table-wrap"><table aria-labelledby="audit" id="audit-table"><thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Who</th><th scope="col">Reason</th><th scope="col">Status</th></tr></thead><tbody>
${auditRows(page.audit)}
</tbody></table></div>`;
  return layout({ ...frame, title: `Account ${id}` }, body);
}

export function confirmPage(
  frame: Frame & { staff: Staff; csrf: string },
  accountId: string,
  op: OperationName,
  paymentIdentifier: string | null,
  reason = '',
): string {
  const action = `/care/accounts/${accountId}/operations/${op}`;
  const body = html`<h1>${OPERATIONS[op].label}</h1>
<form class="card" method="post" action="${action}">
  <p>Account <span class="id">${accountId}</span>${paymentIdentifier ? html`, card <span class="id">${paymentIdentifier}</span>` : null}.</p>
  <p>${OPERATIONS[op].effect}</p>
  ${csrfField(frame.csrf)}
  ${paymentIdentifier ? html`<input type="hidden" name="paymentIdentifier" value="${paymentIdentifier}">` : null}
  <label for="reason">Reason (required, recorded in the audit trail)</label>
  <textarea id="reason" name="reason" required minlength="3" maxlength="500">${reason}</textarea>
  <div><button type="submit" class="${op === 'close' || op === 'fraudBlock' ? 'danger' : ''}">Confirm: ${OPERATIONS[op].label}</button>
  <a class="button secondary" href="/care/accounts/${accountId}">Cancel</a></div>
</form>`;
  return layout({ ...frame, title: OPERATIONS[op].label }, body);
}

/** An operation the account's state does not allow: the reason, nothing to confirm, the way back. */
export function notApplicablePage(staff: Staff, csrf: string, accountId: string, op: OperationName, refusal: string): string {
  const body = html`<h1>${OPERATIONS[op].label}: not applicable</h1>
<p role="alert" class="error">${refusal} Nothing was changed.</p>
<p><a class="button secondary" href="/care/accounts/${accountId}">Back to the account</a></p>`;
  return layout({ title: `${OPERATIONS[op].label}: not applicable`, staff, csrf }, body);
}

/** A reveal of a value the user or the business profile does not hold in full (an SSN known by its last four, no email): nothing was audited. */
export function notRevealablePage(staff: Staff, csrf: string, accountId: string, label: string): string {
  const title = `Reveal ${label}: not applicable`;
  const body = html`<h1>${title}</h1>
<p role="alert" class="error">There is no ${label} stored in full to reveal. Nothing was recorded.</p>
<p><a class="button secondary" href="/care/accounts/${accountId}">Back to the account</a></p>`;
  return layout({ title, staff, csrf }, body);
}

/**
 * The console where it is not served (production without an identity provider): a plain not-found
 * that names no configuration (the start-up line and the docs tell the operator why) and links to
 * nothing, not even the stylesheet, since none of it is served either.
 */
export function notServedPage(): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Not found</title>
</head>
<body>
<main><h1>Not found</h1><p>There is no such page.</p></main>
</body>
</html>`.value;
}

export function errorPage(title: string, message: string, staff?: Staff, csrf?: string): string {
  return layout({ title, staff, csrf }, html`<h1>${title}</h1><p>${message}</p><p><a href="/care">Back to the care console</a></p>`);
}
