"""Checks of the JSON Schemas in schemas/: well-formed draft-07, documented, and right on examples."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schemas"
SCHEMA_FILES = [
    "skill-md.schema.json",
    "skill-toml.schema.json",
    "skill-json.schema.json",
    "virtual-skill.schema.json",
]
DRAFT7 = "http://json-schema.org/draft-07/schema#"

# Keywords whose values are one subschema, a list of subschemas, or a map of them.
ONE = ("items", "additionalProperties", "additionalItems", "if", "then", "else", "not",
       "contains", "propertyNames")
MANY = ("anyOf", "oneOf", "allOf")
MAP = ("properties", "patternProperties", "definitions", "dependencies")


def load(name: str) -> dict:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def subschemas(node: dict, path: str = ""):
    """Yield (json-pointer-ish path, subschema) for every subschema below ``node``."""
    for key in ONE:
        child = node.get(key)
        if isinstance(child, dict):
            yield f"{path}/{key}", child
            yield from subschemas(child, f"{path}/{key}")
        elif key == "items" and isinstance(child, list):
            for i, c in enumerate(child):
                if isinstance(c, dict):
                    yield f"{path}/items/{i}", c
                    yield from subschemas(c, f"{path}/items/{i}")
    for key in MANY:
        for i, child in enumerate(node.get(key, [])):
            if isinstance(child, dict):
                yield f"{path}/{key}/{i}", child
                yield from subschemas(child, f"{path}/{key}/{i}")
    for key in MAP:
        children = node.get(key)
        if not isinstance(children, dict):
            continue
        for name, child in children.items():
            if isinstance(child, dict):
                yield f"{path}/{key}/{name}", child
                yield from subschemas(child, f"{path}/{key}/{name}")


def known_rule_ids() -> set[str]:
    from skillsite.linter.rules import RULES

    return set(RULES)


def validator(name: str) -> Draft7Validator:
    return Draft7Validator(load(name))


def error_paths(name: str, instance) -> set[str]:
    return {"/" + "/".join(str(p) for p in e.absolute_path) for e in validator(name).iter_errors(instance)}


def errors(name: str, instance):
    return list(validator(name).iter_errors(instance))


# --------------------------------------------------------------------------- structure

@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_valid_draft7_schema(name):
    schema = load(name)
    assert schema["$schema"] == DRAFT7
    Draft7Validator.check_schema(schema)


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_id_title_description(name):
    schema = load(name)
    assert schema["$id"] == f"https://skillsite.dev/schemas/{name}"
    assert isinstance(schema.get("title"), str) and schema["title"].strip()
    assert isinstance(schema.get("description"), str) and schema["description"].strip()


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_every_subschema_has_description(name):
    schema = load(name)
    missing = [p for p, sub in subschemas(schema)
               if not (isinstance(sub.get("description"), str) and sub["description"].strip())]
    assert not missing, f"subschemas without a description: {missing}"


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_rule_annotations_name_known_rules(name):
    known = known_rule_ids()
    assert {"name-format", "version-format", "virtual-id-format"} <= known  # the parse works
    schema = load(name)
    for path, sub in [("", schema), *subschemas(schema)]:
        ann = sub.get("x-skillsite-rule")
        if ann is None:
            continue
        if isinstance(ann, str):
            assert ann in known, f"{path}: unknown rule {ann!r}"
        else:
            assert isinstance(ann, dict), f"{path}: annotation must be a string or an object"
            for keyword, rule_id in ann.items():
                assert keyword in sub, f"{path}: annotates keyword {keyword!r} it does not use"
                assert rule_id in known, f"{path}: unknown rule {rule_id!r}"


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_unknown_fields_allowed(name):
    assert load(name)["additionalProperties"] is True


# --------------------------------------------------------------------------- SKILL.md

SKILL_MD = "skill-md.schema.json"


def test_skill_md_minimal_and_full_pass():
    assert not errors(SKILL_MD, {"name": "pdf-processing", "description": "Extract text from PDFs."})
    full = {
        "name": "deploy-app",
        "description": "Deploy the application. Use when the user asks to ship.",
        "license": "Apache-2.0",
        "compatibility": "Requires git and docker",
        "metadata": {"author": "example-org", "version": "1.0",
                     "ongrid": {"scope": "host", "min_ongrid_version": "0.9"}, "os": ["linux"]},
        "allowed-tools": "Bash(git:*) Read",
        "argument-hint": "[environment]",
        "disable-model-invocation": True,
        "user-invocable": False,
        "model": "sonnet",
        "effort": "high",
        "when_to_use": "When deploying.",
        "context": "fork",
        "agent": "Explore",
        "hooks": {"PreToolUse": []},
        "paths": ["src/**/*.py"],
        "shell": "bash",
        "version": "1.2.0",
        "activation": {"mode": "keyword", "keywords": ["deploy", "ship"]},
        "tools": [{"name": "restart", "impl": "builtin.restart", "class": "destructive",
                   "description": "Restart a service.", "when_to_use": "When asked.",
                   "confirmation": True, "timeout_seconds": 30}],
        "config_section": "deploy",
        "type": "skill",
        "id": "skill:deploy-app",
        "tags": ["ops"],
        "intent": "deploy",
        "applies_to": ["kubernetes"],
        "depends_on": ["skill:build-app"],
        "requires": {"tools": ["shell"], "capabilities": ["network"]},
        "risk": "high",
        "trust": {"level": "curated", "publisher": "me"},
        "inputs": {"env": {"required": True}},
        "x-custom-field": 42,
    }
    assert not errors(SKILL_MD, full)


def test_skill_md_bad_name_and_empty_description():
    paths = error_paths(SKILL_MD, {"name": "Bad--Name", "description": ""})
    assert paths == {"/name", "/description"}


@pytest.mark.parametrize("name", ["-pdf", "pdf-", "pdf--x", "PDF", "pdf_x", "a" * 65, ""])
def test_skill_md_name_rules(name):
    assert "/name" in error_paths(SKILL_MD, {"name": name, "description": "d"})


def test_skill_md_name_annotations():
    by_keyword = {e.validator: e.schema.get("x-skillsite-rule", {}).get(e.validator)
                  for e in errors(SKILL_MD, {"name": "x" * 65 + "_", "description": "d"})}
    assert by_keyword == {"pattern": "name-format", "maxLength": "name-length"}


def test_skill_md_required_fields():
    errs = errors(SKILL_MD, {})
    assert {e.validator for e in errs} == {"required"}
    assert {e.message for e in errs} == {"'name' is a required property",
                                         "'description' is a required property"}


def test_skill_md_lengths():
    assert "/description" in error_paths(SKILL_MD, {"name": "a", "description": "x" * 1025})
    assert not errors(SKILL_MD, {"name": "a", "description": "x" * 1024})
    assert "/compatibility" in error_paths(SKILL_MD, {"name": "a", "description": "d", "compatibility": ""})
    assert "/compatibility" in error_paths(SKILL_MD, {"name": "a", "description": "d",
                                                      "compatibility": "x" * 501})


def test_skill_md_metadata_values_are_open():
    doc = {"name": "a", "description": "d", "metadata": {"n": 1, "l": [1], "o": {"x": None}}}
    assert not errors(SKILL_MD, doc)
    assert "/metadata" in error_paths(SKILL_MD, {"name": "a", "description": "d", "metadata": "x"})


def test_skill_md_allowed_tools_list_is_annotated():
    errs = errors(SKILL_MD, {"name": "a", "description": "d", "allowed-tools": ["Read", "Bash"]})
    assert len(errs) == 1
    assert errs[0].validator == "type"
    assert errs[0].schema["x-skillsite-rule"]["type"] == "allowed-tools-format"


def test_skill_md_dialect_types():
    base = {"name": "a", "description": "d"}
    assert "/disable-model-invocation" in error_paths(SKILL_MD, {**base, "disable-model-invocation": "yes"})
    assert "/user-invocable" in error_paths(SKILL_MD, {**base, "user-invocable": 1})
    assert "/hooks" in error_paths(SKILL_MD, {**base, "hooks": "x"})
    assert "/tools/0/class" in error_paths(SKILL_MD, {**base, "tools": [{"name": "t", "class": "nuke"}]})
    assert "/tools/0/timeout_seconds" in error_paths(SKILL_MD, {**base, "tools": [{"timeout_seconds": 1.5}]})
    assert "/risk" in error_paths(SKILL_MD, {**base, "risk": "extreme"})
    assert "/requires/capabilities" in error_paths(SKILL_MD, {**base, "requires": {"capabilities": "x"}})


def test_skill_md_activation_keyword_needs_keywords():
    base = {"name": "a", "description": "d"}
    assert not errors(SKILL_MD, {**base, "activation": {"mode": "always"}})
    errs = errors(SKILL_MD, {**base, "activation": {"mode": "keyword"}})
    assert [(e.validator, list(e.absolute_path)) for e in errs] == [("required", ["activation"])]
    assert "/activation/mode" in error_paths(SKILL_MD, {**base, "activation": {"mode": "sometimes"}})


# --------------------------------------------------------------------------- .skill.toml

SKILL_TOML = "skill-toml.schema.json"
TOML_OK = {"name": "qc-expert", "version": "1.0.0", "description": "QC best practices",
           "skill_type": "knowledge", "author": "Lab", "domains": ["qc", "wgs"],
           "prompt_additions": ["Prefer fastp."]}


def test_skill_toml_passes():
    assert not errors(SKILL_TOML, TOML_OK)
    tool = {"name": "clinical-db", "version": "1.0.0-rc.1+build.5", "description": "d",
            "skill_type": "tool", "requires": ["mcp://db.example.org:5050/mcp"], "entry": "x"}
    assert not errors(SKILL_TOML, tool)


def test_skill_toml_bad_skill_type():
    errs = errors(SKILL_TOML, {**TOML_OK, "skill_type": "other"})
    assert [(e.validator, list(e.absolute_path)) for e in errs] == [("enum", ["skill_type"])]


def test_skill_toml_required():
    errs = errors(SKILL_TOML, {"name": "x"})
    assert sorted(e.message for e in errs) == [
        "'description' is a required property",
        "'skill_type' is a required property",
        "'version' is a required property",
    ]


def test_skill_toml_version_format_is_annotated():
    errs = errors(SKILL_TOML, {**TOML_OK, "version": "1.0"})
    assert [(e.validator, e.schema["x-skillsite-rule"][e.validator]) for e in errs] == [
        ("pattern", "version-format")]
    assert "/version" in error_paths(SKILL_TOML, {**TOML_OK, "version": 1})


def test_skill_toml_tool_needs_endpoint():
    tool = {k: v for k, v in TOML_OK.items() if k != "prompt_additions"} | {"skill_type": "tool"}
    for doc in (tool, {**tool, "requires": []}):
        errs = errors(SKILL_TOML, doc)
        assert len(errs) == 1
        assert errs[0].schema["x-skillsite-rule"] == "tool-endpoint-missing"


def test_skill_toml_list_types():
    assert "/domains" in error_paths(SKILL_TOML, {**TOML_OK, "domains": "qc"})
    assert "/requires/0" in error_paths(SKILL_TOML, {**TOML_OK, "requires": [1]})


# --------------------------------------------------------------------------- skill.json

SKILL_JSON = "skill-json.schema.json"
JSON_OK = {"name": "disk_usage", "description": "Report disk usage.", "entry": "./run.sh",
           "schema": {"type": "object", "properties": {"path": {"type": "string"}}},
           "env_allow": ["PATH"], "timeout_seconds": 0, "class": "safe", "category": "external"}


def test_skill_json_passes():
    assert not errors(SKILL_JSON, JSON_OK)
    assert not errors(SKILL_JSON, {"name": "x", "description": "d", "entry": "bin/x"})


def test_skill_json_failures():
    assert "/name" in error_paths(SKILL_JSON, {**JSON_OK, "name": "disk-usage"})
    assert "/description" in error_paths(SKILL_JSON, {**JSON_OK, "description": ""})
    assert "/class" in error_paths(SKILL_JSON, {**JSON_OK, "class": "read"})
    assert "/timeout_seconds" in error_paths(SKILL_JSON, {**JSON_OK, "timeout_seconds": "30"})
    assert "/env_allow" in error_paths(SKILL_JSON, {**JSON_OK, "env_allow": "PATH"})
    assert "/schema" in error_paths(SKILL_JSON, {**JSON_OK, "schema": "object"})
    missing = {e.message for e in errors(SKILL_JSON, {"name": "x"})}
    assert missing == {"'description' is a required property", "'entry' is a required property"}


def test_skill_json_name_annotation():
    errs = errors(SKILL_JSON, {**JSON_OK, "name": "Disk"})
    assert [e.schema["x-skillsite-rule"][e.validator] for e in errs] == ["name-format"]


# --------------------------------------------------------------------------- virtual skill page

VIRTUAL = "virtual-skill.schema.json"
VIRTUAL_OK = {
    "type": "skill", "id": "skill:postgres-index-review", "schema": "mini-a.skill/v1",
    "name": "postgres-index-review", "title": "PostgreSQL Index Review",
    "description": "Analyze PostgreSQL workloads.", "tags": ["postgresql", "database"],
    "intent": ["diagnose slow query"], "applies_to": ["postgres"], "inputs": {"repository": {"required": True}},
    "capabilities": ["filesystem-read"], "depends_on": ["skill:inspect-repository"],
    "requires": {"tools": ["shell"], "capabilities": ["filesystem-read"]}, "risk": "low",
    "trust": {"level": "curated", "publisher": "openaf", "signed": False},
    "compatibility": {"mini-a": True, "codex": True}, "version": 1,
}


def test_virtual_passes():
    assert not errors(VIRTUAL, VIRTUAL_OK)
    assert not errors(VIRTUAL, {"type": "skill", "name": "x"})
    aliases = {"name": "x", "intents": "one", "appliesTo": "pg", "dependsOn": "y",
               "dependencies": ["wiki:y.md"], "tags": "solo", "version": "1.0"}
    assert not errors(VIRTUAL, aliases)


def test_virtual_bad_risk():
    errs = errors(VIRTUAL, {**VIRTUAL_OK, "risk": "extreme"})
    assert [(e.validator, list(e.absolute_path)) for e in errs] == [("enum", ["risk"])]


def test_virtual_capabilities_must_be_list():
    errs = errors(VIRTUAL, {**VIRTUAL_OK, "requires": {"capabilities": "filesystem-read"}})
    assert [(e.validator, list(e.absolute_path)) for e in errs] == [("type", ["requires", "capabilities"])]


def test_virtual_other_failures():
    assert "/trust/level" in error_paths(VIRTUAL, {**VIRTUAL_OK, "trust": {"level": "blessed"}})
    assert "/inputs" in error_paths(VIRTUAL, {**VIRTUAL_OK, "inputs": ["repository"]})
    assert "/compatibility" in error_paths(VIRTUAL, {**VIRTUAL_OK, "compatibility": "mini-a"})
    assert "/tags" in error_paths(VIRTUAL, {**VIRTUAL_OK, "tags": 3})
    assert "/version" in error_paths(VIRTUAL, {**VIRTUAL_OK, "version": True})
    assert {e.message for e in errors(VIRTUAL, {"type": "skill"})} == {"'name' is a required property"}


def test_virtual_id_annotation():
    errs = errors(VIRTUAL, {**VIRTUAL_OK, "id": "postgres-index-review"})
    assert [e.schema["x-skillsite-rule"][e.validator] for e in errs] == ["virtual-id-format"]
