"""The report's stylesheet (inline in the page; a file of its own would need packaging)."""

CSS = """
:root { --ok: #1a7f37; --bad: #cf222e; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px;
       padding: 16px 24px 64px; color: #1f2328; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; } h4 { margin: 0 0 6px; font-size: 13px; color: var(--muted); }
h5 { margin: 6px 0 2px; font-size: 12px; color: var(--muted); }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
thead th { background: var(--soft); }
table.numbers td:nth-child(n+2), table.index td:nth-child(n+3) { text-align: right;
  font-variant-numeric: tabular-nums; }
img.plot { display: block; max-width: 100%; height: auto; margin: 8px 0; }
code, pre { font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 360px; overflow: auto;
      background: var(--soft); padding: 4px 6px; border-radius: 4px; }
.yes, .check.pass .name { color: var(--ok); } .no, .check.fail .name, .error { color: var(--bad); }
.badge { font-size: 12px; padding: 1px 8px; border-radius: 10px; color: white; vertical-align: middle; }
.badge.solved { background: var(--ok); } .badge.unsolved { background: var(--bad); }
.episode { display: none; }
.episode:target { display: block; }
body:has(.episode:target) main.overview { display: none; }
dl.facts { display: grid; grid-template-columns: repeat(4, max-content minmax(0, 1fr)); gap: 2px 10px;
           background: var(--soft); padding: 8px 12px; border-radius: 6px; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.turn { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 6px 16px;
        border-top: 1px solid var(--line); padding: 8px 0; }
.turn h4 { grid-column: 1 / -1; }
.msg { border-radius: 6px; padding: 4px 10px; margin: 4px 0; }
.msg p { margin: 2px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.customer { background: #ddf4ff; } .msg.assistant { background: #dafbe1; }
.submission { font-size: 12px; color: var(--muted); }
.tag { font-size: 11px; color: var(--muted); border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; }
details.call { margin: 3px 0; padding: 2px 8px; border-left: 3px solid var(--line); }
details.call.failed { border-left-color: var(--bad); }
details.call summary { cursor: pointer; overflow-wrap: anywhere; }
.took { color: var(--muted); font-size: 12px; }
.closed, .other, .none { color: var(--muted); font-size: 13px; }
.check { border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; margin: 4px 0; font-size: 12px; }
.check.fail { border-color: #ffcecb; background: #fff5f5; }
.check .name { font-weight: 600; overflow-wrap: anywhere; }
.check dl { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 2px 8px; margin: 4px 0 0; }
.check dt { color: var(--muted); } .check dd { margin: 0; }
.back { margin: 0; }
.check .source, .check .actor { font-size: 11px; border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; }
.by-source p { color: var(--muted); font-size: 12px; }
"""
