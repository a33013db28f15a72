"""What common commands do, read from their argv: the effect table of the shell classifier.

Each handler reads one program's arguments the way the program does (options, targets,
sub-commands) and returns its :class:`Effect` list. Wrappers (``sudo``, ``env``, ``nice``,
``timeout``, ``xargs``, ``find -exec``) are looked through to the command they run, so
``xargs rm`` deletes like ``rm``. Anything not in the table is ``unknown`` and is asked about
(ARCHITECTURE.md: safety).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from aria_desktop.core.hands.effects import (
    Context,
    Effect,
    EffectKind,
    has_flag,
    option_value,
    positional,
)

__all__ = ["READ_ONLY_COMMANDS", "effects_of"]

Handler = Callable[[str, list[str], Context], list[Effect]]

READ_ONLY_COMMANDS = frozenset(
    {
        "cat", "head", "tail", "wc", "ls", "stat", "file", "du", "df", "pwd", "echo", "printf",
        "whoami", "id", "uname", "which", "diff", "cmp", "md5sum", "sha1sum", "sha256sum",
        "sha512sum", "cksum", "basename", "dirname", "realpath", "readlink", "nl", "grep",
        "egrep", "fgrep", "rg", "cut", "column", "jq", "tac", "rev", "fold", "comm", "paste",
        "strings", "od", "hexdump", "base64", "seq", "true", "false", "uptime", "free", "ps",
        "lsblk", "locale", "date", "tree", "sort", "uniq", "find", "git", "xxd", "expand",
        "nproc", "env", "printenv", "test",
    }
)  # fmt: skip
"""Commands that run without asking when every effect is read-only and every path allowed."""

_DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "srm", "wipe"})
_TRASHERS = frozenset({"trash-put", "trash", "gtrash"})
_DISK_ERASERS = re.compile(r"^(mkfs(\..+)?|wipefs|fdisk|sfdisk|gdisk|parted|mkswap|blkdiscard)$")
_PERMISSIONS = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl", "setcap"})
_CREATORS = frozenset({"touch", "mkdir", "mkfifo", "mknod", "tee", "split", "csplit", "patch"})
_COMPRESSORS = frozenset({"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "lz4"})
_NETWORK = frozenset(
    {
        "curl", "wget", "ssh", "sftp", "ftp", "nc", "ncat", "netcat", "telnet", "ping", "dig",
        "nslookup", "host", "whois", "http", "https", "aria2c", "lftp", "rclone", "mosh", "socat",
        "ssh-copy-id", "traceroute", "tracepath", "mtr",
    }
)  # fmt: skip
_INSTALLERS = frozenset(
    {"apt", "apt-get", "aptitude", "dpkg", "snap", "flatpak", "brew", "dnf", "yum", "pacman",
     "zypper", "pip", "pip3", "pipx", "npm", "pnpm", "yarn", "cargo", "gem", "conda", "mamba",
     "uv", "go"}
)  # fmt: skip
_INSTALL_WORDS = frozenset({"install", "i", "add", "ci", "get", "sync", "upgrade", "update"})
_INSTALLER_READS = frozenset({"list", "show", "freeze", "search", "ls", "info", "outdated"})
_INTERPRETERS = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|perl|ruby|node|nodejs|deno|bun|php|lua[0-9.]*|Rscript|"
    r"bash|sh|zsh|dash|fish|ksh|tclsh|pwsh|osascript|awk|gawk|mawk)$"
)
_INLINE_FLAGS = ("-c", "-e", "-E", "--eval", "-r", "-p", "--command")
_DESTRUCTIVE_CODE = re.compile(
    r"rmtree|os\.remove|os\.unlink|\.unlink\(|rmdir|removedirs|\brm\s+-|truncate|"
    r"unlinkSync|rmSync|rm_rf|File\.delete|FileUtils\.rm|os\.system|subprocess|\bsystem\(|"
    r"open\([^)]*['\"][wa]|write_text|write_bytes|writeFile|\bdel\s+/",
    re.IGNORECASE,
)
_WRAPPERS_VALUE = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"}),
    "doas": frozenset({"-u", "-C"}),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "chrt": frozenset(),
    "taskset": frozenset(),
    "nohup": frozenset(),
    "setsid": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "command": frozenset(),
    "exec": frozenset(),
    "xargs": frozenset({"-I", "-n", "-P", "-d", "-a", "-E", "-L", "-s", "--delimiter"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "flock": frozenset({"-w", "-E"}),
}
_MAX_DEPTH = 4


def effects_of(argv: list[str], ctx: Context, depth: int = 0) -> list[Effect]:
    """The effects of running ``argv`` in ``ctx`` (wrappers looked through)."""
    if not argv:
        return [Effect(kind="unknown", words="runs nothing (empty command)")]
    if depth > _MAX_DEPTH:
        return [Effect(kind="unknown", words="wraps commands too deeply to judge")]
    program, args = argv[0], list(argv[1:])
    name = posixpath.basename(program)
    if "/" in program and not program.startswith(("/usr/", "/bin/", "/sbin/")):
        return [Effect(kind="unknown", words=f"runs the program {ctx.show(ctx.path(program))}")]
    if name in _WRAPPERS_VALUE:
        return _wrapper(name, args, ctx, depth)
    handler = _HANDLERS.get(name)
    if handler is None:
        for pattern, candidate in _PATTERN_HANDLERS:
            if pattern.match(name):
                handler = candidate
                break
    if handler is None:
        return [Effect(kind="unknown", words=f"runs {name}, which ARIA cannot judge")]
    return handler(name, args, ctx)


def _wrapper(name: str, args: list[str], ctx: Context, depth: int) -> list[Effect]:
    value_options = _WRAPPERS_VALUE[name]
    index = 0
    while index < len(args):
        arg = args[index]
        if name == "env" and "=" in arg and not arg.startswith("-"):
            index += 1
        elif arg == "--":
            index += 1
            break
        elif arg.startswith("-"):
            index += 2 if arg in value_options else 1
        elif name in ("timeout", "chrt", "taskset", "flock") and not _looks_like_command(
            args, index
        ):
            index += 1  # a duration, priority, mask or lock file
        else:
            break
    inner = args[index:]
    effects: list[Effect] = []
    if name in ("sudo", "doas"):
        effects.append(Effect(kind="permissions", words="runs as the administrator (root)"))
    if not inner:
        if name in ("env", "time", "command"):
            return effects or [Effect(kind="read_only", words="prints information")]
        return effects or [Effect(kind="unknown", words=f"runs {name} without a command")]
    found = effects_of(inner, ctx, depth + 1)
    if name == "xargs":
        found = [
            Effect(kind=e.kind, words=e.words + " (and on whatever xargs reads)", paths=e.paths)
            if e.kind != "read_only"
            else e
            for e in found
        ]
    return effects + found


def _looks_like_command(args: list[str], index: int) -> bool:
    """For ``timeout 5 cmd``: the argument after the number is the command."""
    return not re.match(r"^[0-9.]+[smhd]?$|^0x[0-9a-f]+$|^[0-9,-]+$", args[index])


def _deleter(name: str, args: list[str], ctx: Context) -> list[Effect]:
    targets = ctx.paths(positional(args))
    verb = "shreds" if name in ("shred", "wipe", "srm") else "deletes"
    if has_flag(args, "--recursive", letters="rR") and name == "rm":
        verb = "deletes (recursively)"
    return [ctx.changes("deletes", verb, targets)]


def _trasher(name: str, args: list[str], ctx: Context) -> list[Effect]:
    return [ctx.changes("deletes", "moves to the trash", ctx.paths(positional(args)))]


def _gio(name: str, args: list[str], ctx: Context) -> list[Effect]:
    if args and args[0] in ("trash", "remove", "move", "rename", "copy", "save", "mkdir", "set"):
        kind: EffectKind = "deletes" if args[0] in ("trash", "remove") else "writes"
        return [ctx.changes(kind, f"gio {args[0]}", ctx.paths(positional(args[1:])))]
    if args and args[0] in ("list", "info", "cat", "tree"):
        return _reader(name, args[1:], ctx)
    return [Effect(kind="unknown", words=f"runs gio {args[0] if args else ''}".strip())]


_NO_PATHS = frozenset(
    {"echo", "printf", "seq", "true", "false", "uname", "whoami", "id", "nproc", "uptime",
     "free", "locale", "printenv", "ps", "date", "pwd", "which", "test", "lsblk"}
)  # fmt: skip
_VALUE_OPTIONS = {
    "head": frozenset({"-n", "-c"}),
    "tail": frozenset({"-n", "-c"}),
    "cut": frozenset({"-d", "-f", "-c", "-b"}),
    "sort": frozenset({"-t", "-k", "-o", "-S"}),
    "du": frozenset({"-d", "--max-depth"}),
    "tree": frozenset({"-L", "-I", "-P", "-o"}),
    "nl": frozenset({"-s", "-w", "-b"}),
    "grep": frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "--include", "--exclude"}),
    "rg": frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "-g", "--glob", "-t", "--type"}),
    "jq": frozenset({"--arg", "--argjson"}),
    "xxd": frozenset({"-l", "-s", "-c", "-g"}),
    "od": frozenset({"-t", "-N", "-j", "-A"}),
}


_RUNS_PROGRAMS = ("--pre", "--pre-glob", "--compress-program", "--search-zip", "-z")
"""Options of allow-listed readers that start other programs (``rg --pre``, ``sort
--compress-program``): such a call is code, not a read."""


def _reader(name: str, args: list[str], ctx: Context) -> list[Effect]:
    """A read-only command: its positional arguments are the paths it reads."""
    runs = [a for a in args if a.split("=", 1)[0] in _RUNS_PROGRAMS[:3]]
    if runs or (name == "rg" and has_flag(args, "--search-zip", "-z")):
        return [
            Effect(kind="unknown", words=f"{name} {runs[0] if runs else '-z'}: runs other programs")
        ]
    if name in _NO_PATHS:
        return [Effect(kind="read_only", words=f"{name}: prints information")]
    candidates = positional(args, with_value=_VALUE_OPTIONS.get(name, frozenset()))
    pattern_given = has_flag(args, "-e", "-f", "--regexp", "--file")
    if name in ("grep", "egrep", "fgrep", "rg", "jq") and not pattern_given:
        candidates = candidates[1:]  # the pattern or the filter
    paths = ctx.paths(candidates) if candidates else (ctx.path("."),)
    return [Effect(kind="read_only", words=f"reads {ctx.where(paths)}", paths=paths)]


def _sort_like(name: str, args: list[str], ctx: Context) -> list[Effect]:
    effects = _reader(name, args, ctx)
    if name == "sort" and (out := option_value(args, "-o", "--output")):
        effects.append(ctx.changes("writes", "writes", (ctx.path(out),)))
    if name == "uniq" and len(rest := positional(args)) >= 2:
        effects.append(ctx.changes("writes", "writes", (ctx.path(rest[1]),)))
    if name == "tree" and (out := option_value(args, "-o")):
        effects.append(ctx.changes("writes", "writes", (ctx.path(out),)))
    if name == "xxd" and len(rest := positional(args)) >= 2:
        effects.append(ctx.changes("writes", "writes", (ctx.path(rest[1]),)))
    if name == "date" and has_flag(args, "-s", "--set"):
        effects.append(Effect(kind="permissions", words="sets the system clock"))
    return effects


def _find(name: str, args: list[str], ctx: Context) -> list[Effect]:
    roots = [a for a in args if not a.startswith(("-", "(", ")", "!"))][:1] if args else []
    starts = ctx.paths(roots[:1]) if roots and not args[0].startswith("-") else (ctx.path("."),)
    effects = [Effect(kind="read_only", words=f"searches {ctx.where(starts)}", paths=starts)]
    if "-delete" in args:
        effects.append(ctx.changes("deletes", "deletes what it finds under", starts))
    for flag in ("-fprint", "-fprint0", "-fprintf", "-fls"):
        if flag in args and args.index(flag) + 1 < len(args):
            effects.append(ctx.changes("writes", "writes", (ctx.path(args[args.index(flag) + 1]),)))
    for index, arg in enumerate(args):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            inner = []
            for part in args[index + 1 :]:
                if part in (";", "+"):
                    break
                inner.append(part)
            inner_effects = effects_of([p for p in inner if p != "{}"], ctx, 1)
            for effect in inner_effects:
                if effect.kind != "read_only":
                    words = f"{effect.words.split(' ')[0]} what it finds under {ctx.where(starts)}"
                    effects.append(Effect(kind=effect.kind, words=words, paths=starts))
                else:
                    effects.append(effect)
    return effects


def _mover(name: str, args: list[str], ctx: Context) -> list[Effect]:
    """``mv``/``cp``/``ln``/``install``: writes the target; replacing an existing file deletes."""
    value_opts = frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "-o", "-g"})
    rest = positional(args, with_value=value_opts)
    target_dir = option_value(args, "-t", "--target-directory")
    if target_dir:
        sources, target = rest, target_dir
    elif len(rest) >= 2:
        sources, target = rest[:-1], rest[-1]
    else:
        return [Effect(kind="unknown", words=f"runs {name} without a source and a target")]
    source_paths = ctx.paths(sources)
    target_path = ctx.path(target)
    into_dir = ctx.facts.is_dir(target_path)
    landing = (
        tuple(posixpath.join(target_path, posixpath.basename(s)) for s in source_paths)
        if into_dir
        else (target_path,)
    )
    no_clobber = has_flag(
        args, "--no-clobber", "--update=none", letters="n" if name != "ln" else ""
    )
    replaced = tuple(p for p in landing if ctx.facts.exists(p) and not ctx.facts.is_dir(p))
    verbs = {"mv": "moves", "cp": "copies", "ln": "links", "install": "installs files"}
    effects = [
        ctx.changes(
            "writes", f"{verbs.get(name, name)} {ctx.where(source_paths)} to", (target_path,)
        )
    ]
    if name == "mv":
        effects.append(ctx.changes("writes", "removes the originals of", source_paths))
    if replaced and not no_clobber:
        effects.append(ctx.changes("deletes", "overwrites the existing", replaced))
    elif name in ("ln",) and has_flag(args, "--force", letters="f"):
        effects.append(ctx.changes("deletes", "may replace", landing))
    return effects


def _rsync(name: str, args: list[str], ctx: Context) -> list[Effect]:
    rest = positional(args, with_value=frozenset({"-e", "--rsh", "--exclude", "--include"}))
    remote = [r for r in rest if re.match(r"^[^/]*:", r)]
    local = [r for r in rest if r not in remote]
    effects: list[Effect] = []
    if remote or name in ("scp",):
        effects.append(Effect(kind="network", words="copies to or from another computer"))
    if not rest:
        return [Effect(kind="unknown", words=f"runs {name} without paths")]
    target = rest[-1]
    if target not in remote:
        effects.append(ctx.changes("writes", "writes into", (ctx.path(target),)))
    if has_flag(args, "--delete", "--delete-before", "--delete-after", "--delete-during",
                "--delete-excluded", "--del"):  # fmt: skip
        where = (ctx.path(target),) if target not in remote else ()
        effects.append(ctx.changes("deletes", "deletes files missing from the source in", where))
    if has_flag(args, "--remove-source-files"):
        effects.append(ctx.changes("deletes", "deletes the sources", ctx.paths(local[:-1])))
    return effects


def _creator(name: str, args: list[str], ctx: Context) -> list[Effect]:
    opts = frozenset({"-m", "--mode", "-b", "-l", "-n", "-p", "-i", "-d", "-r"})
    targets = ctx.paths(positional(args, with_value=opts if name != "patch" else frozenset()))
    return [ctx.changes("writes", f"{name}: writes", targets)]


def _truncate(name: str, args: list[str], ctx: Context) -> list[Effect]:
    targets = ctx.paths(positional(args, with_value=frozenset({"-s", "--size", "-r"})))
    return [ctx.changes("deletes", "truncates (erases the contents of)", targets)]


def _dd(name: str, args: list[str], ctx: Context) -> list[Effect]:
    effects: list[Effect] = []
    for arg in args:
        if arg.startswith("if="):
            source = ctx.path(arg[3:])
            effects.append(
                Effect(kind="read_only", words=f"reads {ctx.show(source)}", paths=(source,))
            )
        if arg.startswith("of="):
            effects.append(ctx.changes("deletes", "overwrites", (ctx.path(arg[3:]),)))
    return effects or [Effect(kind="unknown", words="runs dd without if= or of=")]


def _sed(name: str, args: list[str], ctx: Context) -> list[Effect]:
    """``sed``/``perl -i``: the first positional is the script unless ``-e``/``-f`` gave it."""
    files = positional(args, with_value=frozenset({"-e", "-f", "--expression", "--file"}))
    if not has_flag(args, "-e", "-f", "--expression", "--file"):
        files = files[1:]
    if name == "perl" or has_flag(args, "--in-place", letters="i"):
        return [ctx.changes("writes", "edits in place", ctx.paths(files))]
    paths = ctx.paths(files) if files else (ctx.path("."),)
    return [Effect(kind="read_only", words=f"reads {ctx.where(paths)}", paths=paths)]


def _permissions(name: str, args: list[str], ctx: Context) -> list[Effect]:
    targets = ctx.paths(positional(args)[1:])
    return [
        Effect(
            kind="permissions",
            words=f"{name}: changes who may use {ctx.where(targets)}",
            paths=targets,
        )
    ]


def _disk(name: str, args: list[str], ctx: Context) -> list[Effect]:
    targets = ctx.paths(positional(args))
    return [
        Effect(kind="deletes", words=f"erases or repartitions {ctx.where(targets)}", paths=targets)
    ]


def _compressor(name: str, args: list[str], ctx: Context) -> list[Effect]:
    if has_flag(args, "--stdout", "--keep", "--list", "--test", letters="cklt"):
        return _reader(name, args, ctx)
    targets = ctx.paths(positional(args))
    return [ctx.changes("deletes", f"{name}: replaces with (de)compressed copies", targets)]


def _archiver(name: str, args: list[str], ctx: Context) -> list[Effect]:
    first = args[0] if args else ""
    if (
        name == "tar"
        and ("t" in first.lstrip("-") or has_flag(args, "--list"))
        and "x" not in first
    ):
        return _reader(name, [], ctx)
    if name == "unzip" and has_flag(args, letters="lvt"):
        return _reader(name, [], ctx)
    folder = option_value(args, "-C", "--directory", "-d")
    where = (ctx.path(folder),) if folder else (ctx.path("."),)
    return [ctx.changes("writes", f"{name}: writes files into", where)]


def _network(name: str, args: list[str], ctx: Context) -> list[Effect]:
    effects = [Effect(kind="network", words=f"{name}: contacts another computer")]
    out = option_value(args, "-o", "--output", "-O", "--output-document")
    if name == "curl" and has_flag(args, "--remote-name", letters="O"):
        effects.append(ctx.changes("writes", "downloads into", (ctx.path("."),)))
    elif out and out != "-":
        effects.append(ctx.changes("writes", "downloads to", (ctx.path(out),)))
    elif name == "wget" and not out:
        effects.append(ctx.changes("writes", "downloads into", (ctx.path("."),)))
    return effects


def _installer(name: str, args: list[str], ctx: Context) -> list[Effect]:
    words = [a for a in args if not a.startswith("-")]
    sub = words[0] if words else ""
    if name == "uv" and sub == "pip" and len(words) > 1:
        sub = words[1]
    if sub in _INSTALLER_READS or has_flag(args, "--version", "-V", "-h", "--help"):
        return [Effect(kind="read_only", words=f"{name} {sub}: shows information")]
    if name == "dpkg" and not has_flag(args, "-i", "--install", "-r", "--remove", "-P", "--purge"):
        return [Effect(kind="read_only", words="dpkg: shows package information")]
    if sub in ("remove", "uninstall", "purge", "rm", "autoremove"):
        return [Effect(kind="installs", words=f"{name} {sub}: removes software")]
    if sub in _INSTALL_WORDS or name == "dpkg" or (name in ("npm", "pnpm", "yarn") and not sub):
        return [
            Effect(kind="installs", words=f"{name} {sub}: installs software".replace("  ", " "))
        ]
    return [Effect(kind="unknown", words=f"runs {name} {sub}".strip())]


def _interpreter(name: str, args: list[str], ctx: Context) -> list[Effect]:
    if args in (["--version"], ["-V"], ["-v"]) and name not in ("perl",):
        return [Effect(kind="read_only", words=f"{name}: prints its version")]
    if name.startswith("python") and "-m" in args:
        module = args[args.index("-m") + 1] if args.index("-m") + 1 < len(args) else ""
        if module in ("pip", "ensurepip"):
            return _installer("pip", args[args.index("-m") + 2 :], ctx)
        if module == "http.server":
            return [Effect(kind="network", words="serves files over the network")]
        return [Effect(kind="unknown", words=f"runs the Python module {module}")]
    for flag in _INLINE_FLAGS:
        if flag in args and args.index(flag) + 1 < len(args):
            code = args[args.index(flag) + 1]
            effects = [Effect(kind="inline_code", words=f"{name} runs inline code: {code[:120]!r}")]
            if _DESTRUCTIVE_CODE.search(code):
                effects.append(ctx.changes("deletes", "runs code that may delete or write", ()))
            if name == "perl" and has_flag(args, letters="i"):
                effects.extend(_sed("perl", args, ctx))
            return effects
    if name in ("awk", "gawk", "mawk"):
        files = positional(args, with_value=frozenset({"-F", "-v", "-f"}))
        effects = [Effect(kind="inline_code", words=f"{name} runs a program: {files[:1]!r}")]
        if files and re.search(r"system\(|>\s*\"|print\s*>", files[0]):
            effects.append(ctx.changes("deletes", "runs code that may write", ()))
        return effects
    script = positional(args)[:1]
    if script:
        return [
            Effect(kind="unknown", words=f"{name} runs the script {ctx.show(ctx.path(script[0]))}")
        ]
    return [Effect(kind="unknown", words=f"starts {name}")]


_GIT_READS = frozenset(
    {"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "grep", "describe",
     "shortlog", "ls-tree", "cat-file", "reflog", "whatchanged", "version", "help"}
)  # fmt: skip
_GIT_NETWORK = frozenset({"push", "pull", "fetch", "clone", "ls-remote", "submodule"})
_GIT_DISCARDS = frozenset({"clean", "reset", "checkout", "restore", "rm", "stash", "switch"})


def _git(name: str, args: list[str], ctx: Context) -> list[Effect]:
    index = 0
    folder = ctx.cwd
    while index < len(args) and args[index].startswith("-"):
        if args[index] in ("-C", "-c", "--git-dir", "--work-tree") and index + 1 < len(args):
            if args[index] == "-C":
                folder = ctx.path(args[index + 1])
            index += 2
        else:
            index += 1
    sub, rest = (args[index], args[index + 1 :]) if index < len(args) else ("", [])
    where = (folder,)
    ctx.touched.append(folder)
    if any(
        a in ("-c", "--config-env", "--exec-path") or a.startswith("--exec-path=")
        for a in args[:index]
    ):
        # Configuration on the command line can name programs git runs (core.pager,
        # core.fsmonitor, aliases): code, not a read.
        return [Effect(kind="inline_code", words="git with configuration that can run programs")]
    if has_flag(rest, "--output", "-O", "--open-files-in-pager", "--ext-diff"):
        return [
            ctx.changes("writes", f"git {sub}: writes output or runs a pager program in", where)
        ]
    if sub in _GIT_READS or (sub in ("branch", "tag", "remote", "config") and _lists(rest)):
        return [
            Effect(
                kind="read_only",
                words=f"git {sub}: reads the repository in {ctx.show(folder)}",
                paths=where,
            )
        ]
    if sub in _GIT_NETWORK:
        effects = [Effect(kind="network", words=f"git {sub}: talks to a remote repository")]
        if sub != "ls-remote":
            effects.append(ctx.changes("writes", f"git {sub}: changes the repository", where))
        if sub == "push" and has_flag(
            rest, "--force", "--force-with-lease", "--mirror", "--delete", letters="fd"
        ):
            effects.append(
                Effect(
                    kind="deletes", words="git push: overwrites or deletes history on the remote"
                )
            )
        return effects
    if sub == "clean":
        return [ctx.changes("deletes", "git clean: deletes untracked files in", where)]
    if sub == "reset" and has_flag(rest, "--hard", "--merge", "--keep"):
        return [ctx.changes("deletes", "git reset: discards uncommitted changes in", where)]
    if sub in _GIT_DISCARDS and sub != "reset":
        return [ctx.changes("deletes", f"git {sub}: may discard uncommitted work in", where)]
    if sub == "branch" and has_flag(rest, "--delete", "--force", letters="dDmMf"):
        return [ctx.changes("deletes", "git branch: deletes or renames branches in", where)]
    if not sub:
        return [Effect(kind="read_only", words="git: prints its help")]
    return [ctx.changes("writes", f"git {sub}: changes the repository in", where)]


def _lists(rest: list[str]) -> bool:
    """``git branch``/``tag``/``remote``/``config`` only list (no names, no changing options)."""
    listing = {"-v", "-vv", "-a", "-r", "--list", "-l", "--show-current", "--get", "--get-all"}
    return all(arg in listing for arg in rest) or rest[:1] in (["--list"], ["-l"], ["--get"])


def _unknown_service(name: str, args: list[str], ctx: Context) -> list[Effect]:
    return [Effect(kind="unknown", words=f"{name}: controls processes, services or the machine")]


_HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(_DELETERS, _deleter),
    **dict.fromkeys(_TRASHERS, _trasher),
    "gio": _gio,
    **dict.fromkeys(READ_ONLY_COMMANDS - {"find", "git", "env"}, _reader),
    **dict.fromkeys(("sort", "uniq", "tree", "xxd", "date"), _sort_like),
    "find": _find,
    **dict.fromkeys(("mv", "cp", "ln", "install"), _mover),
    **dict.fromkeys(("rsync", "scp"), _rsync),
    **dict.fromkeys(_CREATORS, _creator),
    "truncate": _truncate,
    "dd": _dd,
    "sed": _sed,
    **dict.fromkeys(_PERMISSIONS, _permissions),
    **dict.fromkeys(_COMPRESSORS, _compressor),
    **dict.fromkeys(("tar", "unzip", "7z", "unrar"), _archiver),
    **dict.fromkeys(_NETWORK, _network),
    **dict.fromkeys(_INSTALLERS, _installer),
    "git": _git,
    **dict.fromkeys(
        ("kill", "pkill", "killall", "shutdown", "reboot", "poweroff", "systemctl", "service",
         "crontab", "at", "loginctl", "mount", "umount"),
        _unknown_service,
    ),
}  # fmt: skip
_PATTERN_HANDLERS: tuple[tuple[re.Pattern[str], Handler], ...] = (
    (_DISK_ERASERS, _disk),
    (_INTERPRETERS, _interpreter),
)
