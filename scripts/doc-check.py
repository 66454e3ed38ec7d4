#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The documentation against the code, both ways (Documentation/testing.rst,
# "Documentation check"):
#
#   module parameters   every module_param*() of kernel/*.c is a row of the
#                       table in Documentation/device.rst, "Module
#                       parameters"; every parameter the docs name exists
#   counters            every `rdma statistic` counter (kernel/counters.c,
#                       with the drop reasons of kernel/proto/drop.c) is in
#                       the table of Documentation/net.rst, "Counters";
#                       every counter the docs name exists
#   make targets        every `make T` in the docs is a target of the top
#                       Makefile; every .PHONY target is in `make help` and
#                       named in the docs
#   sroce(7)            kernel/sroce.7 has an entry for every module
#                       parameter (MODULE PARAMETERS) and every counter
#                       (COUNTERS, grouped like the net.rst table), and
#                       names no parameter or counter that does not exist
#   reStructuredText    every Documentation/*.rst parses without a docutils
#                       warning or error (Sphinx's :doc: role and toctree
#                       directive are known, and checked no further)
#
# Usage: doc-check.py [TOP]   (default: this tree)
# The docs are README.md and Documentation/*.rst, and the man page
# kernel/sroce.7.  Prints one "ok: ..." or
# "FAILED: ..." line per check; exits 1 if any failed.  TOP lets a test
# run it against a modified copy (scripts/doc-check-selftest.sh).
import glob
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failed = 0


def read(rel):
    with open(os.path.join(top, rel), encoding='utf-8') as f:
        return f.read()


def report(what, problems):
    global failed
    if problems:
        failed += 1
        print(f'FAILED: doc-check {what}')
        for p in problems:
            print(f'  {p}')
    else:
        print(f'ok: doc-check {what}')


class SourceError(Exception):
    pass


def strip_c_comments(s):
    return re.sub(r'/\*.*?\*/|//[^\n]*', ' ', s, flags=re.S)


def one_line(s):
    return re.sub(r'\s+', ' ', s)


# ---- The code ----

def module_params():
    """{name: file} of every module_param*() in kernel/*.c."""
    params = {}
    for path in sorted(glob.glob(os.path.join(top, 'kernel', '*.c'))):
        with open(path, encoding='utf-8') as f:
            src = strip_c_comments(f.read())
        # The first argument is the user-visible name for every variant
        # (module_param, _named, _array, _string, _cb, ...).
        for m in re.finditer(r'\bmodule_param(?:_[a-z_]+)?\s*\(\s*(\w+)',
                             src):
            params[m.group(1)] = 'kernel/' + os.path.basename(path)
    return params


def c_string_array(src, name):
    """The string literals of the initializer of array NAME, with the
    designator of each ("" when there is none)."""
    m = re.search(r'\b' + name + r'\s*\[[^\]]*\]\s*=\s*\{(.*?)\};', src,
                  re.S)
    if not m:
        raise SourceError(f'no initializer of {name}[]')
    out = []
    for e in re.finditer(r'(?:\[\s*(\w+)\s*\]\s*=\s*)?"([^"]*)"',
                         m.group(1)):
        out.append((e.group(1) or '', e.group(2)))
    if not out:
        raise SourceError(f'{name}[] has no names')
    return out


def counters():
    """{name: where} of every counter `rdma statistic` shows, read the way
    kernel/counters.c builds its rdma_stat_desc table."""
    src = strip_c_comments(read('kernel/counters.c'))
    ctrs = {}
    for arr in ('sroce_ctr_names', 'sroce_kqp_stat_names'):
        for _, n in c_string_array(src, arr):
            ctrs[n] = 'kernel/counters.c ' + arr
    # Drop counters: snprintf(..., "rx_drop_%s", sroce_drop_name(i)) for
    # every reason but SROCE_DROP_NONE, which has no counter.
    m = re.search(r'"(\w*)%s"\s*,\s*sroce_drop_name\s*\(', one_line(src))
    if not m:
        raise SourceError('kernel/counters.c: no "<prefix>%s", '
                          'sroce_drop_name() naming the drop counters')
    prefix = m.group(1)
    if not re.search(r'for\s*\(\s*i\s*=\s*1\s*;\s*i\s*<\s*SROCE_DROP_MAX',
                     src):
        raise SourceError('kernel/counters.c: the drop counters no longer '
                          'start at reason 1 (after SROCE_DROP_NONE)')
    drops = c_string_array(strip_c_comments(read('kernel/proto/drop.c')),
                           'sroce_drop_names')
    if not any(d == 'SROCE_DROP_NONE' for d, _ in drops):
        raise SourceError('kernel/proto/drop.c: no [SROCE_DROP_NONE] name')
    reasons = {}
    for d, n in drops:
        if d != 'SROCE_DROP_NONE':
            ctrs[prefix + n] = 'kernel/proto/drop.c'
            reasons[n] = prefix + n
    return ctrs, prefix, reasons


def makefile():
    """(rule targets, .PHONY targets, targets `make help` lists) of the
    top Makefile."""
    src = read('Makefile').replace('\\\n', ' ')
    rules, phony = set(), []
    for line in src.splitlines():
        m = re.match(r'^([A-Za-z0-9_.%-][A-Za-z0-9_.% -]*?)\s*::?(?![=])',
                     line)
        if not m or line.startswith('\t'):
            continue
        names = m.group(1).split()
        if names == ['.PHONY']:
            phony += line.split(':', 1)[1].split()
        else:
            rules.update(names)
    helped = set()
    for m in re.finditer(r"^\t@echo '(make(?: [^ ']+)?)", src, re.M):
        words = m.group(1).split()
        helped.add(words[1] if len(words) > 1 else 'all')
    return rules, phony, helped


# ---- The docs ----

def docs():
    """[(path, text, inline literals)] of README.md and
    Documentation/*.rst; a literal's whitespace runs are one space."""
    out = []
    files = ['README.md'] + sorted(
        'Documentation/' + os.path.basename(p)
        for p in glob.glob(os.path.join(top, 'Documentation', '*.rst')))
    for rel in files:
        text = read(rel)
        if rel.endswith('.md'):
            lits = re.findall(r'`([^`\n]+)`', text)
        else:
            lits = re.findall(r'``(.+?)``', text, re.S)
        out.append((rel, text, [one_line(x).strip() for x in lits]))
    return out


def rst_section(text, title):
    """The body of the section TITLE of an .rst text, up to the next
    title of any level."""
    lines = text.splitlines()
    for i in range(len(lines) - 1):
        if lines[i] == title and re.fullmatch(r'([=\-~^])\1+', lines[i + 1]):
            body = []
            for j in range(i + 2, len(lines)):
                if j + 1 < len(lines) and lines[j + 1] and \
                        re.fullmatch(r'([=\-~^])\1{2,}', lines[j + 1]) and \
                        len(lines[j + 1]) >= len(lines[j]) > 0 and \
                        not lines[j].startswith((' ', '=')):
                    break
                body.append(lines[j])
            return body
    return None


def table_rows(body):
    """{first-column literal: whole row text} of the simple tables (with
    a header) in BODY: a row starts with ``name`` in column 0,
    continuation lines are indented."""
    rows, cur, borders = {}, None, 0
    for line in body:
        if re.fullmatch(r'=+(?: +=+)+ *', line):
            borders = (borders + 1) % 3
            cur = None
            continue
        if borders != 2:
            continue
        m = re.match(r'^``([^`]+)``', line)
        if m:
            cur = m.group(1)
            rows[cur] = line
        elif cur and line.startswith(' ') and line.strip():
            rows[cur] += '\n' + line
        else:
            cur = None
    return rows


# ---- The man page ----

MAN = 'kernel/sroce.7'


def roff_args(s):
    """The arguments of a roff request line, quotes removed."""
    return [a[1:-1] if a.startswith('"') else a
            for a in re.findall(r'"[^"]*"|\S+', s)]


def roff_plain(line):
    """LINE of a man page as text: requests other than the font macros
    are dropped, italic text is shown as <text>, escapes are resolved."""
    if line.startswith(('.', "'")):
        m = re.match(r'[.\']([BI]|[BIR]{2})(?:\s+(.*))?$', line)
        if not m:
            return ''
        fonts, args = m.group(1), roff_args(m.group(2) or '')
        if len(fonts) == 1:
            args = [' '.join(args)]
        out = ''
        for i, a in enumerate(args):
            out += f'<{a}>' if fonts[i % len(fonts)] == 'I' else a
        line = out
    line = re.sub(r'\\fI(.*?)(?:\\f[RPB]|$)', r'<\1>', line)
    line = re.sub(r'\\f[A-Z]', '', line)
    return line.replace('\\-', '-').replace('\\&', '').replace('\\e', '\\')


def man_section(text, title):
    """The lines of section .SH TITLE of a man page, or None."""
    body = None
    for line in text.splitlines():
        if line.startswith('.SH'):
            if body is not None:
                break
            if ' '.join(roff_args(line[3:])) == title:
                body = []
        elif body is not None:
            body.append(line)
    return body


def man_entries(body):
    """{tag as text: [body lines, raw]} of the .TP paragraphs of BODY."""
    entries, cur, want_tag = {}, None, False
    for line in body:
        if line.startswith('.TP'):
            want_tag, cur = True, None
        elif want_tag:
            cur = roff_plain(line).strip()
            entries[cur] = []
            want_tag = False
        elif line.startswith(('.PP', '.SS', '.SH')):
            cur = None
        elif cur is not None:
            entries[cur].append(line)
    return entries


# ---- The checks ----

def check_params(all_docs):
    try:
        params = module_params()
    except (OSError, SourceError) as e:
        report('module parameters (source)', [str(e)])
        return
    body = rst_section(read('Documentation/device.rst'), 'Module parameters')
    if body is None:
        report('module parameters documented',
               ['Documentation/device.rst has no "Module parameters" '
                'section'])
        return
    table = table_rows(body)
    report('module parameters documented (%d, Documentation/device.rst)' %
           len(params),
           [f'{n} ({f}) is not a row of Documentation/device.rst, '
            f'"Module parameters"' for n, f in sorted(params.items())
            if n not in table])
    # How the docs name a parameter: a row of that table,
    # /sys/module/sroce/parameters/NAME, "modprobe sroce NAME=...",
    # SROCE_BENCH_PARAMS="NAME=...", or ``NAME`` / ``NAME=V`` followed by
    # "(module parameter" / "module parameter".
    named = [(n, 'Documentation/device.rst, "Module parameters"')
             for n in table]
    for rel, text, _ in all_docs:
        flat = one_line(text)
        for m in re.finditer(r'/sys/module/sroce/parameters/(\w+)', flat):
            named.append((m.group(1), rel))
        for m in re.finditer(r'modprobe sroce((?: \w+=[^\s`]*)+)', flat):
            named += [(w.split('=')[0], rel) for w in m.group(1).split()]
        for m in re.finditer(r'SROCE_BENCH_PARAMS="([^"]*)"', flat):
            named += [(w.split('=')[0], rel) for w in m.group(1).split()
                      if '=' in w]
        for m in re.finditer(r'(?:``|`)(\w+)(?:=[^`]*)?(?:``|`) \(?'
                             r'(?:sroce )?module parameter', flat):
            named.append((m.group(1), rel))
    report('module parameters named in the docs exist',
           sorted({f'{rel} names module parameter "{n}", which '
                   f'kernel/*.c does not have'
                   for n, rel in named if n not in params and n != 'NAME'}))


# A word that names a counter: rx_drop_*, tx_* or rx_* (not a file
# name, nor a module parameter), or *_naks_sent / *_naks_rcvd.
COUNTER_WORD = re.compile(r'(?<![\w/.-])((?:tx|rx)_[a-z0-9_]*[a-z0-9]|'
                          r'[a-z]+_naks_(?:sent|rcvd))\b(?![<.(/-])')


def check_counters(all_docs):
    try:
        ctrs, prefix, reasons = counters()
        params = module_params()
    except (OSError, SourceError) as e:
        report('counters (source)', [str(e)])
        return
    body = rst_section(read('Documentation/net.rst'), 'Counters')
    if body is None:
        report('counters documented',
               ['Documentation/net.rst has no "Counters" section'])
        return
    table = table_rows(body)
    # The drop counters may be one row, ``<prefix><reason>``, listing the
    # reasons as literals.
    group = table.get(prefix + '<reason>', '')
    listed = set(re.findall(r'``(\w+)``', group))
    missing = []
    for n, where in sorted(ctrs.items()):
        if n in table:
            continue
        if n.startswith(prefix) and n[len(prefix):] in reasons and \
                n[len(prefix):] in listed:
            continue
        missing.append(f'{n} ({where}) is not in the table of '
                       f'Documentation/net.rst, "Counters"')
    report('counters documented (%d, Documentation/net.rst)' % len(ctrs),
           missing)
    # How the docs name a counter: a row of that table; a literal of the
    # drop row; anywhere, a word rx_drop_*, tx_* or rx_* (not a file
    # name), or a word *_naks_sent / *_naks_rcvd.
    bad = set()
    net = 'Documentation/net.rst, "Counters"'
    for n in table:
        if n != prefix + '<reason>' and n not in ctrs:
            bad.add(f'{net} has a row for counter "{n}", which does not '
                    f'exist')
    for r in listed:
        if r not in reasons:
            bad.add(f'{net}: "{r}" in the {prefix}<reason> row is not a '
                    f'drop reason of kernel/proto/drop.c')
    for rel, text, _ in all_docs:
        for m in COUNTER_WORD.finditer(text):
            if m.group(1) not in ctrs and m.group(1) not in params:
                bad.add(f'{rel} names counter "{m.group(1)}", which does '
                        f'not exist')
    report('counters named in the docs exist', sorted(bad))


def check_make(all_docs):
    try:
        rules, phony, helped = makefile()
    except OSError as e:
        report('make targets (source)', [str(e)])
        return
    named = {}
    cmd = re.compile(r'^[ \t]+(?:\$ )?(make(?: .*)?)$', re.M)
    for rel, text, lits in all_docs:
        # Inline literals ``make ...`` and command lines in literal
        # blocks; prose ("make sure") is never taken for a command.
        cmds = [x for x in lits if x == 'make' or x.startswith('make ')]
        cmds += [m.group(1) for m in cmd.finditer(text)]
        for c in cmds:
            words = c.split('#')[0].split()[1:]
            if any(w.startswith(('-C', '-f', '--directory', '--file'))
                   for w in words):
                continue        # another directory's Makefile
            for w in words:
                if w.startswith('-') or re.match(r'[A-Z_][A-Z0-9_]*=', w):
                    continue
                if not re.fullmatch(r'[a-z][a-z0-9_.-]*', w):
                    break       # the command ends (";", "&&", "[VAR=...]")
                named.setdefault(w, rel)
    report('make targets named in the docs exist',
           [f'{rel} names "make {t}": no such target in Makefile'
            for t, rel in sorted(named.items()) if t not in rules])
    problems = [f'.PHONY target "{t}" is not in make help' for t in phony
                if t not in helped]
    problems += [f'make help lists "{t}", which is not in .PHONY'
                 for t in sorted(helped - set(phony))]
    problems += [f'.PHONY target "{t}" is named ("make {t}") nowhere in '
                 f'README.md or Documentation/' for t in phony
                 if t not in named]
    report('make targets documented (%d)' % len(phony), problems)


def man_section_entries(text, name, problems):
    """The entries of the man page's section NAME; a missing one is a
    problem."""
    sec = man_section(text, name)
    if sec is None:
        problems.append(f'{MAN} has no {name} section')
        sec = []
    return man_entries(sec)


def check_man():
    try:
        params = module_params()
        ctrs, prefix, reasons = counters()
        text = read(MAN)
    except (OSError, SourceError) as e:
        report(f'{MAN} (source)', [str(e)])
        return
    problems = []
    entries = man_section_entries(text, 'MODULE PARAMETERS', problems)
    problems += [f'{n} ({f}) has no entry in {MAN}, MODULE PARAMETERS'
                 for n, f in sorted(params.items()) if n not in entries]
    problems += [f'{MAN}, MODULE PARAMETERS has an entry for "{n}", '
                 f'which kernel/*.c does not have'
                 for n in sorted(entries) if n not in params]
    report(f'module parameters in {MAN} (%d)' % len(params), problems)

    problems = []
    entries = man_section_entries(text, 'COUNTERS', problems)
    group = prefix + '<reason>'
    # The drop reasons of the group entry are its bold words.
    listed = set()
    for line in entries.get(group, []):
        m = re.match(r'\.BR?\s+(\w+)', line)
        if m:
            listed.add(m.group(1))
    for n, where in sorted(ctrs.items()):
        if n in entries:
            continue
        if n.startswith(prefix) and n[len(prefix):] in listed:
            continue
        problems.append(f'{n} ({where}) has no entry in {MAN}, COUNTERS')
    problems += [f'{MAN}, COUNTERS has an entry for counter "{n}", which '
                 f'does not exist' for n in sorted(entries)
                 if n != group and n not in ctrs]
    problems += [f'{MAN}: "{r}" in the {group} entry is not a drop reason '
                 f'of kernel/proto/drop.c' for r in sorted(listed)
                 if r not in reasons]
    report(f'counters in {MAN} (%d)' % len(ctrs), problems)

    # Anywhere in the page: the same ways of naming a parameter or a
    # counter as in the .rst docs.
    plain = one_line(' '.join(roff_plain(x) for x in text.splitlines()))
    bad = set()
    for m in re.finditer(r'/sys/module/sroce/parameters/(\w+)', plain):
        if m.group(1) not in params:
            bad.add(f'{MAN} names module parameter "{m.group(1)}", which '
                    f'kernel/*.c does not have')
    for m in re.finditer(r'modprobe sroce((?: \w+=\S*)+)', plain):
        for w in m.group(1).split():
            if w.split('=')[0] not in params:
                bad.add(f'{MAN} names module parameter '
                        f'"{w.split("=")[0]}", which kernel/*.c does not '
                        f'have')
    for m in COUNTER_WORD.finditer(plain):
        if m.group(1) not in ctrs and m.group(1) not in params:
            bad.add(f'{MAN} names counter "{m.group(1)}", which does not '
                    f'exist')
    report(f'parameters and counters named in {MAN} exist', sorted(bad))


def check_rst():
    try:
        import docutils.core
        import docutils.utils
        from docutils.parsers.rst import directives, roles, Directive
    except ImportError:
        report('reStructuredText markup (no python3-docutils)',
               ['install python3-docutils (make deps) to check it'])
        return

    def doc_role(name, rawtext, text, lineno, inliner, options=None,
                 content=None):
        return [docutils.nodes.literal(rawtext, text)], []

    class Toctree(Directive):
        has_content = True
        option_spec = {'maxdepth': directives.unchanged}

        def run(self):
            return []

    roles.register_local_role('doc', doc_role)
    directives.register_directive('toctree', Toctree)
    problems = []
    files = sorted(glob.glob(os.path.join(top, 'Documentation', '*.rst')))
    for path in files:
        rel = os.path.relpath(path, top)
        with open(path, encoding='utf-8') as f:
            src = f.read()
        doc = docutils.core.publish_doctree(
            src, source_path=rel,
            settings_overrides={'report_level': 5, 'halt_level': 5,
                                'file_insertion_enabled': False})
        for m in doc.findall(docutils.nodes.system_message):
            if m['level'] >= 2:
                # "FILE:LINE: (LEVEL) message", as docutils prints it
                problems.append(m.astext().splitlines()[0])
    report(f'reStructuredText markup ({len(files)} files)', problems)


all_docs = docs()
check_rst()
check_params(all_docs)
check_counters(all_docs)
check_make(all_docs)
check_man()
sys.exit(1 if failed else 0)
