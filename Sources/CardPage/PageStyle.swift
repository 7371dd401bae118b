/// The card page's style sheet.
enum PageStyle {
    static let css = #"""
:root { --bg: #f4f5f7; --panel: #fff; --ink: #1d2330; --muted: #667085; --line: #e3e6ec; --accent: #1f5eff;
        --ok: #127a3a; --bad: #b42318; --warn: #a15c00; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .6rem; padding: .7rem 1.2rem; background: #111827; color: #f9fafb; }
header h1 { font-size: 1.1rem; margin: 0 .6rem 0 0; font-weight: 600; }
header nav { margin-left: auto; display: flex; gap: .4rem; }
#card-name { color: #9ca3af; font-weight: 400; }
main { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 1rem; padding: 1rem 1.2rem; }
@media (max-width: 1100px) { main { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
@media (max-width: 640px) { main { grid-template-columns: minmax(0, 1fr); } }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: .8rem 1rem; min-width: 0; }
#trace-panel, #credential-panel { grid-column: 1 / -1; }
h2 { font-size: 1rem; margin: 0 0 .5rem; display: flex; align-items: center; gap: .5rem; }
h3 { font-size: .9rem; margin: .8rem 0 .3rem; color: var(--muted); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: 0 0 .6rem; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; background: #e5e7eb; color: #374151; font-size: .8rem; font-weight: 500; }
header .badge { background: #374151; color: #e5e7eb; }
.badge.live { background: #065f46; color: #d1fae5; }
.badge.off { background: #7f1d1d; color: #fee2e2; }
button, .button { font: inherit; padding: .3rem .8rem; border-radius: 6px; border: 1px solid #c7ccd6; background: #fff; color: var(--ink);
                  cursor: pointer; text-decoration: none; }
header button, header .button { background: #1f2937; color: #f9fafb; border-color: #4b5563; }
button:hover, .button:hover { border-color: var(--accent); }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button.danger { color: var(--bad); }
button:disabled { opacity: .45; cursor: default; border-color: #c7ccd6; }
input, select { font: inherit; padding: .28rem .5rem; border: 1px solid #c7ccd6; border-radius: 6px; min-width: 0; }
form { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-top: .4rem; }
.note { color: var(--muted); font-size: .85rem; }
table { width: 100%; border-collapse: collapse; margin-bottom: .6rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; font-size: .85rem; }
.rp { margin: .5rem 0 .2rem; font-weight: 600; }
.rp small { color: var(--muted); font-weight: 400; }
.empty { color: var(--muted); font-style: italic; }
#presence-prompt { border: 2px solid var(--warn); border-radius: 8px; padding: .5rem .8rem; margin-top: .5rem; background: #fff8eb; }
#presence-prompt p { margin: 0 0 .5rem; }
#presence-modes label { margin-right: .8rem; white-space: nowrap; }
#faults li { margin: .2rem 0; }
.tools { display: flex; gap: .4rem; margin-bottom: .5rem; }
.tools input { flex: 1; }
#trace { font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, monospace; max-height: 32rem; overflow: auto; }
.row { border-bottom: 1px solid var(--line); padding: .25rem .3rem; cursor: pointer; }
.row:hover { background: #f8fafc; }
.row .head { display: grid; grid-template-columns: 6.5rem minmax(12rem, 1fr) 16rem 5.5rem; gap: .6rem; }
.row .status.ok { color: var(--ok); }
.row .status.bad { color: var(--bad); }
.row.reader { color: var(--muted); }
.row .duration { text-align: right; color: var(--muted); }
.row .summary { color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.row pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; background: #f3f4f6; padding: .4rem; border-radius: 4px; }
.row .details { display: none; }
.row.open .details { display: block; }
.row.open .summary { display: none; }
#toast { position: fixed; bottom: 1rem; left: 50%; transform: translateX(-50%); background: #111827; color: #fff;
         padding: .5rem 1rem; border-radius: 8px; max-width: 80vw; pointer-events: none; }
#toast.bad { background: var(--bad); }
"""#
}
