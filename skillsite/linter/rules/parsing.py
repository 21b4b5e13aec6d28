"""Rules reported while finding and reading files, and by the JSON Schemas."""
from __future__ import annotations

from skillsite.linter.rules.registry import SCHEMA, declare
from skillsite.models import ERROR, WARNING

declare("file-too-large", ERROR, """
    The file is larger than the size cap (1 MiB unless ``max-file-size`` says otherwise).

    Skills are loaded into an agent's context; a file this large is almost certainly a
    mistake (a data file or a log named like a skill). The file is not read further.
""", family="parsing")
declare("empty-file", ERROR, "The file is empty or holds only white space.", family="parsing")
declare("binary-file", ERROR, "The file contains NUL bytes, so it is binary, not text.",
        family="parsing")
declare("invalid-utf8", ERROR, """
    The file is not valid UTF-8. The location is the first invalid byte.

    Agent Skills files are UTF-8; save the file in that encoding.
""", family="parsing")
declare("unreadable-file", ERROR, """
    A file or folder could not be read (permissions, or a path that does not exist), or a
    path named like a skill file is not a regular file (a FIFO or device, which could block
    or never end).
""", family="parsing")
declare("plugin-manifest-invalid", ERROR, """
    A Claude Code ``.claude-plugin/plugin.json`` or ``.claude-plugin/marketplace.json``
    cannot be used: it is not UTF-8, not valid JSON, or not a JSON object. Claude Code
    then cannot load the plugin or the marketplace.

    The skills are still built: a plugin whose ``plugin.json`` is broken takes its folder's
    name, and a broken marketplace lists no plugins. Fix the JSON (the location points at
    the first syntax error).
""", family="parsing")
declare("git-unreadable", WARNING, """
    The corpus (or a collection in it) is a git work tree that git cannot read: a damaged
    ``.git``, no commit yet, or git is missing or too slow. The build goes on without
    source links and last-changed times for it; ``git status`` in that folder says what
    is wrong.
""", family="parsing")
declare("symlink-broken", ERROR, "A symlink in the corpus points at nothing.", family="parsing")
declare("symlink-escape", ERROR, """
    A symlink points outside the corpus root.

    Skills are untrusted input, so skillsite never follows a path out of the root it was
    given. Copy the target into the corpus instead of linking to it.
""", family="security")
declare("symlink-loop", ERROR, """
    A symlink points back into a folder that contains it, or a chain of links loops.
    It is not followed, so the walk always ends.
""", family="parsing")
declare("frontmatter-missing", ERROR, """
    A ``SKILL.md`` must start with YAML front matter: a ``---`` line, the fields, and a
    closing ``---`` line. Without it the skill has no name or description and loaders skip it.
""", family="parsing", peers={"agnix": "AS-001", "skillsaw": "agentskill-valid"})
declare("frontmatter-unclosed", ERROR, """
    The front matter opens with ``---`` but no later line is exactly ``---``.

    A line such as ``description: a---b`` does not close the front matter: only a line that
    holds three dashes and nothing else (trailing spaces allowed) does.
""", family="parsing")
declare("yaml-syntax", ERROR, """
    The front matter is not valid YAML. The location is where the YAML parser gave up.
    Tabs used for indentation are the most common cause; YAML allows only spaces.
""", family="parsing", peers={"agnix": "AS-016", "skillsaw": "agentskill-valid"}, fixable=True)
declare("toml-syntax", ERROR, "The ``.skill.toml`` manifest is not valid TOML.", family="parsing")
declare("json-syntax", ERROR, "The ``skill.json`` manifest is not valid JSON.", family="parsing")
declare("duplicate-key", ERROR, """
    A key appears twice in the same mapping.

    YAML and JSON parsers disagree on which value wins (most keep the last, some reject the
    file), so the skill means different things to different loaders.

    Failing example::

        ---
        name: pdf
        name: pdf-tools
        ---
""", family="parsing")
declare("too-complex", ERROR, """
    The front matter or manifest nests more than 64 levels deep, expands to more than
    100,000 values through YAML aliases (an "alias bomb"), holds an integer of more than
    4300 digits, or its front matter is larger than 256 KiB. skillsite stops reading it
    rather than exhaust memory or time.
""", family="parsing")
declare("yaml-implicit-type", WARNING, """
    A plain YAML scalar means different things to YAML 1.1 and YAML 1.2 loaders.

    YAML 1.1 (PyYAML, many Python loaders) reads ``yes``, ``no``, ``on`` and ``off`` as
    booleans, ``2024-01-01`` as a date, ``010`` as octal 8 and ``1:30`` as 90; YAML 1.2
    (js-yaml, Go, Rust loaders) reads them as strings or plain numbers. skillsite keeps the
    string and warns. Quote the value to make it mean one thing everywhere.

    Failing example::

        version: 2024-01-01

    Passing example::

        version: "2024-01-01"
""", family="parsing")
declare("not-a-mapping", ERROR, """
    The front matter or manifest is a list or a single value where a mapping of keys to
    values belongs.
""", family="parsing")
declare("internal-error", ERROR, """
    skillsite itself failed on this file. The rest of the corpus is still checked; please
    report the message as a bug.
""", family="parsing")
declare("required-field", ERROR, """
    A field the format requires is missing: ``name`` and ``description`` for ``SKILL.md``;
    ``name``, ``version``, ``description`` and ``skill_type`` for ``.skill.toml``; ``name``,
    ``description`` and ``entry`` for ``skill.json``; ``name`` for a Mini-A page.
""", scope=SCHEMA, peers={"agnix": "AS-002, AS-003", "skillsaw": "agentskill-valid"})
declare("field-type", ERROR, """
    A field has the wrong type for its format's schema, such as a list where a string
    belongs, or ``requires.capabilities`` given as a string instead of a list.
""", scope=SCHEMA)
declare("invalid-value", ERROR, """
    A field holds a value outside its allowed set, such as ``risk: extreme`` (allowed:
    ``low``, ``medium``, ``high``), ``skill_type = "other"`` or a ``class`` ongrid does not know.
""", scope=SCHEMA)
declare("schema-violation", ERROR, """
    The document breaks another constraint of its JSON Schema in ``schemas/``.
""", scope=SCHEMA)
declare("name-length", ERROR, """
    ``name`` must be 1 to 64 characters long (Agent Skills specification).
""", scope=SCHEMA, hint="must be 1 to 64 characters long")
declare("description-length", ERROR, """
    ``description`` must be non-empty and at most 1024 characters (Agent Skills
    specification). It should say what the skill does and when to use it.
""", scope=SCHEMA, hint="must be 1 to 1024 characters long",
   peers={"agnix": "AS-008", "skillsaw": "agentskill-description"})
declare("compatibility-length", ERROR, """
    ``compatibility``, when present, must be 1 to 500 characters (Agent Skills
    specification).
""", scope=SCHEMA, hint="must be 1 to 500 characters long", peers={"agnix": "AS-011"})
declare("allowed-tools-format", WARNING, """
    ``allowed-tools`` should be one space-separated string, as the specification says.

    Claude Code also accepts a YAML list, so a list is a warning, not an error.

    Passing example::

        allowed-tools: Bash(git:*) Read
""", scope=SCHEMA, hint="should be one space-separated string, such as \"Read Bash(git:*)\"",
   fixable=True)
declare("version-format", WARNING, """
    An oxo-flow ``version`` should be a semantic version such as ``1.2.0``, as the oxo-flow
    documentation asks.
""", scope=SCHEMA, formats=("skill-toml",),
   hint="should be a semantic version such as \"1.2.0\"")
declare("unused-suppression", WARNING, """
    An inline suppression comment that silences nothing: no problem of the rules it names
    is on the lines it covers (any more), or it names a rule that does not exist.

    Suppressions are written ``<!-- skillsite-disable-next-line RULE -->``,
    ``<!-- skillsite-disable RULE -->`` ... ``<!-- skillsite-enable RULE -->`` in Markdown
    and ``# skillsite: disable=RULE`` in YAML front matter, TOML and scripts (at the end of
    a line for that line, alone for the next one); without a rule ID they silence every
    rule. Remove a stale one so that it does not hide a future problem.
    ``inline-suppressions = false`` in the configuration ignores them all.
""", family="suppression")
