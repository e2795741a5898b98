"""A NeMo Gym model server (`SimpleResponsesAPIModel`) whose policy is a script, for the CPU
tests: it replays recorded tool calls instead of running a model. The row names its script in
`responses_create_params.metadata.script`; the n-th model call (n = the tool outputs already in
the input) emits the script's n-th call as a `function_call`, and after the last one a plain
assistant message, which ends NeMo Gym's simple_agent loop."""

import json
from pathlib import Path

from fastapi import Body, HTTPException

from nemo_gym.base_responses_api_model import BaseResponsesAPIModelConfig, SimpleResponsesAPIModel
from nemo_gym.openai_utils import NeMoGymResponse, NeMoGymResponseCreateParamsNonStreaming


class ScriptedPolicyConfig(BaseResponsesAPIModelConfig):
    scripts_fpath: str


def _type(item) -> str | None:
    return item.get("type") if isinstance(item, dict) else getattr(item, "type", None)


class ScriptedPolicy(SimpleResponsesAPIModel):
    config: ScriptedPolicyConfig

    async def responses(self, body: NeMoGymResponseCreateParamsNonStreaming = Body()) -> NeMoGymResponse:
        scripts = json.loads(Path(self.config.scripts_fpath).read_text())
        name = (body.metadata or {}).get("script")
        if name not in scripts:
            raise HTTPException(status_code=400, detail=f"no script {name!r}")
        calls = scripts[name]
        step = sum(1 for item in body.input if _type(item) == "function_call_output")
        if step < len(calls):
            call = calls[step]
            output = {"type": "function_call", "id": f"fc_{step}", "call_id": f"call_{step}", "name": call["tool"],
                      "arguments": json.dumps(call["arguments"]), "status": "completed"}
        else:
            output = {"type": "message", "id": f"msg_{step}", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": "Thank you.", "annotations": []}]}
        return NeMoGymResponse.model_validate({
            "id": f"resp_{name}_{step}", "created_at": 0.0, "model": "scripted", "object": "response",
            "output": [output], "parallel_tool_calls": False, "tool_choice": "auto", "tools": []})

    async def chat_completions(self, body: dict = Body()):
        raise HTTPException(status_code=501, detail="the scripted policy speaks the Responses API only")


if __name__ == "__main__":
    ScriptedPolicy.run_webserver()
