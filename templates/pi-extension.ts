// handbook: what past sessions taught, appended to pi's system prompt.
// Written by `handbook integrate pi`; `handbook integrate pi --remove` takes it away again.
// The summary is read once per session, so the system prompt (and its cache) stays the same
// for every turn. When handbook fails or is missing, nothing is added and nothing is shown.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

const HANDBOOK: string = {{ binary }};
const ARGS: string[] = {{ args }};

export default function (pi: ExtensionAPI) {
  let summary = "";
  pi.on("session_start", async (_event, ctx) => {
    summary = "";
    try {
      const run = await pi.exec(HANDBOOK, [...ARGS, "--project", ctx.cwd], { timeout: 10_000 });
      summary = run.code === 0 ? run.stdout.trim() : "";
    } catch {
      summary = "";
    }
  });
  // pi passes the system prompt as one string; Oh My Pi as a list of sections, which a
  // template string would join with commas.
  pi.on("before_agent_start", async (event) => {
    if (!summary) return undefined;
    const prompt: string | string[] = event.systemPrompt;
    return { systemPrompt: Array.isArray(prompt) ? [...prompt, summary] : `${prompt}\n\n${summary}` };
  });
}
