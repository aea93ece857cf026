/** The console's one stylesheet, served from /care/assets/console.css (the CSP allows no inline style). */
export const CONSOLE_CSS = `
:root { --ink: #1b1f24; --muted: #4a5361; --line: #c9d0d8; --bg: #f6f7f9; --accent: #0b5cad; --danger: #a4161a; --ok: #1d6b2f; --warn: #7a4b00; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem 1rem; }
.skip:focus { left: 1rem; z-index: 10; }
header.bar { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .5rem 1rem; padding: .75rem 1.25rem; background: #12263f; color: #fff; }
header.bar a { color: #fff; font-weight: 600; text-decoration: none; }
header.bar .who { display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; }
header.bar button { background: transparent; color: #fff; border: 1px solid #fff; }
main { max-width: 72rem; margin: 0 auto; padding: 1.25rem; }
h1 { font-size: 1.5rem; margin: .25rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 .5rem; }
section.card, form.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem 1.25rem; margin-bottom: 1rem; }
label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
input, select, textarea { font: inherit; padding: .5rem .6rem; border: 1px solid #8792a2; border-radius: 4px; width: 100%; max-width: 32rem; background: #fff; color: var(--ink); }
textarea { min-height: 5rem; }
.hint { color: var(--muted); font-size: .9rem; margin: .25rem 0; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .5rem 1rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; margin: .5rem .5rem 0 0; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
button:disabled { border-color: var(--muted); color: var(--muted); background: #fff; cursor: not-allowed; }
.hint.why { display: inline; margin-left: .25rem; }
.row { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: flex-end; }
.row > div { flex: 1 1 14rem; }
dl.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: .5rem 1.5rem; margin: 0; }
dl.facts dt { color: var(--muted); font-size: .85rem; }
dl.facts dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: #fff; font-size: .95rem; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f5; }
td.id, .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; overflow-wrap: anywhere; }
.status { display: inline-block; padding: 0 .5rem; border-radius: 999px; border: 1px solid currentColor; font-weight: 600; font-size: .9rem; }
.status-normal, .status-active, .status-delivered { color: var(--ok); }
.status-pending, .status-inactive { color: var(--warn); }
.status-locked, .status-blocked, .status-closed, .status-failed { color: var(--danger); }
.notice { padding: .75rem 1rem; border-radius: 4px; border: 1px solid var(--ok); background: #e9f5ec; margin-bottom: 1rem; }
.error { padding: .75rem 1rem; border-radius: 4px; border: 1px solid var(--danger); background: #fbeaea; margin-bottom: 1rem; }
.revealed { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; background: #fff5d6; padding: 0 .25rem; }
form.inline { display: inline; }
ul.ops { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; }
ul.ops.unavailable { display: block; }
h4 { margin: 1rem 0 0; font-size: 1rem; }
@media (max-width: 48rem) { main { padding: .75rem; } th, td { padding: .35rem .4rem; } }
`;
