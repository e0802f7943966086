// The digest page's stylesheet, inlined: the page loads nothing. System fonts, a light and a dark
// palette, outcome colours shared by the badges, the tiles and the timeline.

export const DIGEST_CSS = `
:root {
  color-scheme: light dark;
  --bg: #f5f6f8; --card: #ffffff; --ink: #1d2330; --muted: #5f6b7a; --line: #dde2e8;
  --done: #1f8a4c; --done-bg: #e3f4ea; --failed: #c62f2f; --failed-bg: #fbe5e5;
  --live: #2463c8; --live-bg: #e2ecfb; --wait: #b7791f; --wait-bg: #fbf0dc;
  --paused: #6b7280; --paused-bg: #eceef1;
  --s-initial: #3b82d6; --s-continue: #5b9be3; --s-resume: #e08a2e; --s-retry: #d2a52a;
  --s-fix: #1f9e8f;
  --s-synthesis: #8557d3; --high: #c62f2f; --medium: #b7791f; --low: #3b82d6; --unknown: #7c8796;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #12151b; --card: #1b2028; --ink: #e6e9ee; --muted: #98a2b1; --line: #2d3440;
    --done-bg: #173425; --failed-bg: #3a1b1d; --live-bg: #1a2a44; --wait-bg: #3a2e17; --paused-bg: #262b33;
    --done: #4cc27f; --failed: #f06b6b; --live: #6ea4f0; --wait: #e0a94a;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
.page { max-width: 880px; margin: 0 auto; padding: 28px 20px 48px; }
h1 { font-size: 26px; margin: 0 0 2px; letter-spacing: -0.01em; }
h2 { font-size: 17px; margin: 34px 0 12px; color: var(--muted); font-weight: 600;
  text-transform: uppercase; letter-spacing: 0.06em; }
.window { color: var(--muted); margin: 0 0 18px; }
a { color: inherit; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(96px, 1fr)); gap: 10px; }
.tile { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
.tile b { display: block; font-size: 26px; line-height: 1.2; font-variant-numeric: tabular-nums; }
.tile span { color: var(--muted); font-size: 13px; }
a.tile { text-decoration: none; }
a.tile:hover { border-color: var(--muted); }
a.tile span { text-decoration: underline; text-decoration-color: var(--line); }
.tile.t-done b { color: var(--done); }
.tile.t-failed.some b, .tile.t-needs.some b { color: var(--failed); }
.tile.t-needs.some { border-color: var(--failed); background: var(--failed-bg); }
.tile.t-live b { color: var(--live); }
.run { background: var(--card); border: 1px solid var(--line); border-left: 6px solid var(--muted);
  border-radius: 10px; padding: 16px 20px 14px; margin: 0 0 16px; }
.run.state-done { border-left-color: var(--done); }
.run.state-failed { border-left-color: var(--failed); }
.run.state-running, .run.state-synthesizing { border-left-color: var(--live); }
.run.state-waiting { border-left-color: var(--wait); }
.run-head { display: flex; gap: 12px; align-items: baseline; }
.run-head h3 { margin: 0; font-size: 18px; line-height: 1.35; flex: 1; overflow-wrap: anywhere; }
.badge { font-size: 12px; font-weight: 700; letter-spacing: 0.05em; padding: 2px 9px; border-radius: 99px;
  white-space: nowrap; background: var(--paused-bg); color: var(--paused); }
.state-done .badge { background: var(--done-bg); color: var(--done); }
.state-failed .badge { background: var(--failed-bg); color: var(--failed); }
.state-running .badge, .state-synthesizing .badge { background: var(--live-bg); color: var(--live); }
.state-waiting .badge { background: var(--wait-bg); color: var(--wait); }
.run.needs-you { border-left-color: var(--failed); }
.needs-you .badge { background: var(--failed-bg); color: var(--failed); }
.run-id { color: var(--muted); font-size: 13px; margin: 2px 0 8px; overflow-wrap: anywhere; }
.facts { color: var(--muted); font-size: 14px; margin: 0 0 6px; }
.facts b { color: var(--ink); font-weight: 600; font-variant-numeric: tabular-nums; }
.needs { margin: 8px 0; padding: 8px 12px; border-radius: 8px; background: var(--failed-bg); }
.needs strong { color: var(--failed); }
.outcome { margin: 8px 0; }
.warning { margin: 6px 0; padding: 6px 12px; border-radius: 8px; background: var(--wait-bg); }
figure { margin: 10px 0 4px; overflow-x: auto; }
svg.timeline { width: 100%; min-width: 600px; height: auto; display: block; }
.bar { stroke-width: 0; }
.s-initial { fill: var(--s-initial); } .s-continue { fill: var(--s-continue); }
.s-resume { fill: var(--s-resume); } .s-retry { fill: var(--s-retry); }
.s-fix { fill: var(--s-fix); }
.s-synthesis { fill: var(--s-synthesis); }
.end-error, .end-limit { stroke: var(--failed); stroke-width: 2; }
.end-running { opacity: 0.75; }
.bar-label { fill: #fff; font-size: 11px; font-weight: 600; pointer-events: none; }
.w-limit, .w-overage { fill: var(--wait); opacity: 0.8; }
.w-backoff, .w-other { fill: var(--muted); opacity: 0.55; }
.tick { stroke: var(--line); stroke-width: 1; }
.axis { stroke: var(--muted); stroke-width: 1; }
.tick-label { fill: var(--muted); font-size: 11px; font-variant-numeric: tabular-nums; }
.ends line { stroke: var(--s-synthesis); stroke-width: 1.5; stroke-dasharray: 4 3; }
.now line { stroke: var(--live); stroke-width: 1.5; stroke-dasharray: 2 2; }
.m-restart circle { fill: var(--s-resume); stroke: var(--card); stroke-width: 1.5; }
.m-silent path { fill: var(--wait); } .m-hung path { fill: var(--failed); }
.m-end-time rect { fill: var(--s-synthesis); } .m-user rect, .m-overnight rect { fill: var(--ink); }
.m-finish line { stroke: var(--ink); stroke-width: 1; opacity: 0.5; }
.m-done circle { fill: var(--done); stroke: var(--card); stroke-width: 2; }
.m-failed circle { fill: var(--failed); stroke: var(--card); stroke-width: 2; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted);
  margin: 2px 0 0; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px;
  vertical-align: -1px; }
.legend .lg-initial { background: var(--s-initial); }
.legend .lg-resume { background: var(--s-resume); }
.legend .lg-retry { background: var(--s-retry); }
.legend .lg-fix { background: var(--s-fix); }
.legend .lg-synthesis { background: var(--s-synthesis); }
.legend .lg-error { background: transparent; border: 2px solid var(--failed); }
.legend .lg-wait { background: var(--wait); }
.legend .lg-backoff { background: var(--muted); }
.legend .lg-hang { background: var(--failed); }
.legend .lg-ends { background: transparent; border: 1.5px dashed var(--s-synthesis); }
.legend .lg-now { background: transparent; border: 1.5px dotted var(--live); }
.report { margin: 12px 0 4px; }
.report-path { font-size: 13px; color: var(--muted); overflow-wrap: anywhere; }
.report blockquote { margin: 4px 0 0; padding: 8px 14px; border-left: 3px solid var(--line);
  background: var(--bg); border-radius: 0 8px 8px 0; }
.report blockquote p { margin: 2px 0; overflow-wrap: anywhere; }
.report blockquote .h { font-weight: 700; }
.no-report { color: var(--muted); font-style: italic; margin: 10px 0 4px; }
details.story { margin-top: 8px; font-size: 14px; }
details.story summary { cursor: pointer; color: var(--muted); }
details.story ol { list-style: none; padding: 0; margin: 6px 0 0; }
details.story li { display: flex; align-items: baseline; gap: 10px; padding: 2px 0; }
details.story time { flex: none; min-width: 52px; white-space: nowrap; color: var(--muted);
  font-variant-numeric: tabular-nums; }
details.story li span { flex: 1; min-width: 0; overflow-wrap: anywhere; }
.q-count { font-size: 14px; margin: 8px 0 0; }
ol.questions { list-style: none; padding: 0; margin: 0; }
.question { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 12px 16px; margin: 0 0 10px; }
.question .q-title { font-weight: 600; overflow-wrap: anywhere; }
.question .q-meta, .question .q-file { color: var(--muted); font-size: 13px; }
.question p { margin: 4px 0 0; overflow-wrap: anywhere; }
.prio { display: inline-block; min-width: 64px; text-align: center; font-size: 11px; font-weight: 700;
  text-transform: uppercase; letter-spacing: 0.05em; padding: 1px 8px; border-radius: 99px; margin-right: 8px;
  color: #fff; background: var(--unknown); vertical-align: 1px; }
.prio-high { background: var(--high); } .prio-medium { background: var(--medium); }
.prio-low { background: var(--low); }
.hint { color: var(--muted); font-size: 14px; }
.empty { color: var(--muted); }
footer { color: var(--muted); font-size: 12px; margin-top: 36px; }
`;
