#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mutate.py: does the test suite notice a bug? The project's own list of single-line
mutants of app/ and lib/ (MUTANTS below: the data path, the wake protocol, consumers and
groups, rules, pairs, the stages, reloads and refusals, telemetry and metrics, accounting),
each applied alone to a scratch copy of the tree, built, and run against a test command:

    python3 tools/mutate.py --quick             # meson test --suite unit --suite quick
    python3 tools/mutate.py --full              # every test of the plain build
    python3 tools/mutate.py --targeted          # only each mutant's own tests (fast)
    python3 tools/mutate.py --quick --only wake-last-not-kicked,busy-percent-inverted
    python3 tools/mutate.py --list              # the mutants; --check: each still applies

Per mutant it prints KILLED (with the test that failed), SURVIVED, TIMEOUT (the command ran
past --timeout: counted killed, as a hang is a failure) or INVALID (it does not compile:
not counted), and at the end the score: killed / (killed + survived). A mutant whose
listed tests are in the command runs them first and stops at the first failure: the same
verdict as the whole command, sooner.

The source tree is never touched: the scratch copy (--workdir, default build-mutate/ at the
top of the tree, ignored by git) gets the tree's tracked and untracked files (not ignored
ones) copied in when they differ, its own build directory (-Dtest_hooks=true, as the tests'
build), and the mutated file is put back in a finally block, so the next build there is
incremental. --jobs N runs N mutants at once in N copies (the integration tests are not
parallel-safe on a small machine: keep 1 there). --json FILE writes the results.

Exit status: 0 when every valid mutant was killed, 1 when any survived, 2 on a usage error
or a mutant that no longer applies (its line changed: update MUTANTS).
"""
import argparse
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_OPTS = ['-Dtest_hooks=true']


@dataclass
class Mutant:
    name: str       # unique, short
    area: str       # what part of the program it breaks
    file: str       # relative to the top of the tree
    orig: str       # text that occurs exactly once in the file
    repl: str       # what replaces it (one line changed)
    tests: list     # the meson tests expected to kill it (--targeted runs these)
    why: str = ''   # the bug it stands for, when the name does not say
    equivalent: str = ''  # non-empty: argued equivalent (not counted in the score)


M = Mutant
# The mutants. Each is one line's change, the kind of slip a review should catch. Keep each
# `orig` unique in its file (--check says when an edit elsewhere breaks that).
MUTANTS = [
    # ---- the wake protocol (rps_wake.h, rx_loop.c wake_workers(), worker_loop.c)
    M('wake-last-not-kicked', 'wake', 'app/datapath/rx_loop.c',
      '\tfor (uint16_t w = 0; w < steer->nb_workers; w++) {\n\t\tint r = rps_backlog_kick(',
      '\tfor (uint16_t w = 0; w + 1 < steer->nb_workers; w++) {\n\t\tint r = rps_backlog_kick(',
      ['integration-wake'], 'the last worker is never kicked after an enqueue'),
    M('wake-kick-never-woken', 'wake', 'lib/rps/rps_wake.h',
      '\tif (s == RPS_WAKE_SLEEP &&\n', '\tif (s == RPS_WAKE_KICKED &&\n',
      ['unit-wake', 'integration-wake'], 'a sleeping worker is never woken (KICKED tested)'),
    M('wake-kick-no-syscall', 'wake', 'lib/rps/rps_wake.h',
      '\t\trps_wake_syscall(w);\n\t\treturn RPS_KICK_WOKEN;',
      '\t\t(void)w;\n\t\treturn RPS_KICK_WOKEN;',
      ['unit-wake', 'integration-wake'], 'the state says woken, the futex wake is not made'),
    M('wake-counter-lost', 'wake', 'app/datapath/rx_loop.c',
      '\t\t\tRPS_CTR_ADD(st->wakeups, 1);', '\t\t\t(void)st;',
      ['integration-wake', 'integration-idle'], 'wakeups never counted'),
    M('wake-backlog-kick-skipped', 'wake', 'lib/rps/rps_backlog.h',
      '\tif (b->prod.tail == b->prod.kicked || b->wake == NULL)',
      '\tif (b->prod.tail != b->prod.kicked || b->wake == NULL)',
      ['unit-backlog', 'integration-wake'], 'a backlog that got packets is not kicked'),
    M('wake-idle-never-sleeps', 'wake', 'app/datapath/worker_loop.c',
      '\tif (rps_idle_next(idle, 0, w->ctx.now) == 0) {',
      '\tif (rps_idle_next(idle, 0, w->ctx.now) == 0 || 1) {',
      ['integration-wake', 'integration-idle'], 'an idle worker spins for ever'),
    # ---- the data path: steering, backlogs, the RX loop
    M('steer-low-bits', 'data path', 'lib/rps/rps_map.h',
      '\treturn (uint32_t)((uint64_t)hash >> map->shift);',
      '\treturn hash & map->mask;',
      ['unit-map', 'integration-rss-queues', 'integration-steering'],
      "the map's bucket from the hash's low bits, which the NIC's RETA used already"),
    M('steer-move-before-drained', 'data path', 'lib/rps/rps_backlog.h',
      '\treturn (int64_t)(head - pos) >= 0;', '\treturn (int64_t)(head - pos) >= -64;',
      ['unit-backlog', 'unit-steer', 'integration-reorder'],
      "a bucket moves before its old worker processed its last packet (RFS's rule broken)"),
    M('steer-refused-advance-tail', 'data path', 'lib/rps/steer.c',
      '\t\t\tif (unlikely(ok < glen[w]))\n\t\t\t\tdrop_refused(ctx, b, g + ok, glen[w] - ok);',
      '\t\t\tif (unlikely(ok < glen[w]))\n\t\t\t\tok = 0;',
      ['unit-steer', 'integration-backlog-full'],
      'packets a full backlog refused are neither freed nor counted'),
    M('steer-drop-no-port', 'accounting', 'lib/rps/steer.c',
      '\trps_stats_port_drop_bulk(ctx->stats, g, n, r);\n\trte_pktmbuf_free_bulk(g, n);',
      '\trte_pktmbuf_free_bulk(g, n);',
      ['integration-backlog-full', 'integration-forward'],
      "backlog_full drops not counted against their ingress port"),
    M('rx-received-no-port', 'accounting', 'app/datapath/rx_loop.c',
      '\t\t\tRPS_CTR_ADD(rps_stats_port(st, app->io.rxq_port[q])->received, n);',
      '\t\t\tRPS_CTR_ADD(rps_stats_port(st, app->io.rxq_port[q])->received, n - 1);',
      ['integration-steering', 'integration-forward'], "a port's received one short a burst"),
    M('pipeline-processed-no-port', 'accounting', 'lib/stages/pipeline.c',
      '\t\t\tRPS_CTR_ADD(rps_stats_port(st, pkts[i]->port)->processed, 1);',
      '\t\t\t(void)st;',
      ['integration-steering', 'integration-metrics'],
      "packets consumed without an output stage not counted processed for their port"),
    M('worker-received-undercount', 'accounting', 'app/datapath/worker_loop.c',
      '\t\tRPS_CTR_ADD(st->received_rps, n);', '\t\tRPS_CTR_ADD(st->received_rps, n - 1);',
      ['integration-steering', 'integration-consumers'], 'received_rps one short a burst'),
    M('worker-no-complete', 'data path', 'app/datapath/worker_loop.c',
      '\t\trps_backlog_complete(from, n);', '\t\trps_backlog_complete(from, n - 1);',
      ['integration-steering', 'integration-reorder', 'integration-move-drain'],
      'the worker publishes one packet less than it processed: moves and drains wait'),
    M('exit-when-idle-ignores-backlogs', 'data path', 'app/datapath/rx_loop.c',
      '\t\tif (rps_backlog_depth(&lc->backlogs[i]) != 0 &&',
      '\t\tif (rps_backlog_depth(&lc->backlogs[i]) > 1000000000u &&',
      ['integration-backlog-full'],
      '--exit-when-idle stops the RX lcore with packets still in the backlogs'),
    M('backpressure-flush-ignored', 'data path', 'app/datapath/rx_loop.c',
      '\t\tif (unlikely(rps_steer_held(steer) != 0) && rps_steer_flush(steer) != 0) {',
      '\t\tif (unlikely(rps_steer_held(steer) != 0) && rps_steer_flush(steer) != 0 && 0) {',
      ['integration-backpressure', 'integration-consumers'],
      'held packets do not pause RX: later bursts overtake them or are lost'),
    M('move-drain-never', 'data path', 'app/datapath/rx_loop.c',
      '\tif (now - rx->defer_tsc < wait)\n\t\treturn;',
      '\tif (now - rx->defer_tsc < wait || 1)\n\t\treturn;',
      ['integration-move-drain'], 'a move that waits for ever is never drained'),
    M('move-drain-not-counted', 'data path', 'app/datapath/rx_loop.c',
      '\tRPS_CTR_ADD(rx->self.stats.move_drains, 1);', '\t(void)rx;',
      ['integration-move-drain'], 'move_drains never counted'),
    # ---- rules
    M('rules-prefix-one-short', 'rules', 'lib/rps/rules.c',
      '\t\t\tint l = RTE_MAX(0, RTE_MIN(32, len - 32 * w));',
      '\t\t\tint l = RTE_MAX(0, RTE_MIN(32, len - 1 - 32 * w));',
      ['unit-rules', 'integration-rules'], 'a rule prefix matches one bit short'),
    M('rules-last-wins', 'rules', 'lib/rps/rules.c',
      '\td->priority = (int32_t)(RPS_RULES_MAX - i); /* the first rule wins */',
      '\td->priority = (int32_t)(i + 1); /* the first rule wins */',
      ['unit-rules', 'integration-rules'], 'the last matching rule wins, not the first'),
    M('rules-drop-not-counted', 'rules', 'lib/rps/steer.c',
      '\tRPS_CTR_ADD(ctx->stats->dropped[RPS_DROP_RULE], dropped);', '\t(void)dropped;',
      ['unit-steer', 'integration-rules'], 'a drop rule frees packets without counting them'),
    M('rules-no-drain-on-swap', 'rules', 'app/datapath/rx_loop.c',
      '\tif (!drained(app, rx))\n\t\treturn 0;\n\t/* the set\'s hits start here',
      '\tif (!drained(app, rx) && 0)\n\t\treturn 0;\n\t/* the set\'s hits start here',
      ['integration-rules'], 'new rules steer before the workers drained the old ones'),
    M('rules-ports-ignored', 'rules', 'lib/rps/rules.c',
      '\tfl[f].value.u16 = r->dport_lo;', '\tfl[f].value.u16 = 0;',
      ['unit-rules', 'integration-rules'], "a rule's destination ports from 0"),
    # ---- pairs (--forward)
    M('pair-flushed-when-full', 'pairs', 'app/datapath/worker_loop.c',
      '\t\t\trps_txq_flush(&w->fwd_txq[i]);', '\t\t\t(void)i;',
      ['integration-forward'], "a pair port's TX queue is flushed only when full"),
    M('pair-one-side-flushed', 'pairs', 'app/datapath/worker_loop.c',
      '\t\tfor (uint16_t i = 0; i < 2 * w->app->opt.nb_fwd; i++)\n\t\t\trps_txq_flush(',
      '\t\tfor (uint16_t i = 0; i < w->app->opt.nb_fwd; i++)\n\t\t\trps_txq_flush(',
      ['integration-forward'], "one port of each pair flushed only when its buffer is full"),
    M('pair-wrong-side', 'pairs', 'app/datapath/worker_loop.c',
      '\t\t\t\t\tt = &w->fwd_txq[2 * k + (port == o->fwd[k].b)];',
      '\t\t\t\t\tt = &w->fwd_txq[2 * k + (port == o->fwd[k].a)];',
      ['integration-forward-respond'], "respond answers on the pair's other port"),
    M('pair-self-allowed', 'pairs', 'lib/control/settings.c',
      '\t\tif (a == b) {\n\t\t\t*why = "a port paired with itself";',
      '\t\tif (a == b && 0) {\n\t\t\t*why = "a port paired with itself";',
      ['unit-settings', 'integration-forward'], 'a port paired with itself is accepted'),
    M('tx-forwarded-not-counted', 'pairs', 'lib/stages/output.c',
      '\t\t\tRPS_CTR_ADD(p->forwarded, j - i);', '\t\t\tRPS_CTR_ADD(p->forwarded, j - i - 1);',
      ['integration-forward'], "a port's forwarded one short a TX burst"),
    # ---- consumers and groups
    M('consumer-drop-no-port', 'consumers', 'lib/stages/share.c',
      '\t\trps_stats_port_drop_bulk(q->st, pkts, n, why);\n',
      '\t\t(void)why;\n',
      ['integration-consumers'], "a consumer's drops not counted against their ingress port"),
    M('consumer-absent-as-full', 'consumers', 'lib/stages/share.c',
      '\tif (why == RPS_DROP_CONSUMER_ABSENT)\n\t\tRPS_CTR_ADD(q->absent, n);',
      '\tif (why != RPS_DROP_CONSUMER_ABSENT)\n\t\tRPS_CTR_ADD(q->absent, n);',
      ['unit-share', 'integration-consumers'], "a consumer's absent and full swapped"),
    M('consumer-of-wrong', 'consumers', 'app/app_consumers.h',
      '\treturn (uint16_t)(cons->group_base[g] + w % cons->group_size[g]);',
      '\treturn (uint16_t)(cons->group_base[g] + (w + 1) % cons->group_size[g]);',
      ['integration-consumers'], 'a worker feeds the next consumer of its group'),
    M('consumer-delivered-lost', 'consumers', 'lib/stages/share.c',
      '\t\t\tRPS_CTR_ADD(q->delivered, sent);', '\t\t\t(void)sent;',
      ['unit-share', 'integration-consumers'], "a consumer's delivered never counted"),
    M('consumer-secondary-counts', 'consumers', 'lib/stages/share.c',
      '\t\t\tif (!q->secondary) {\n\t\t\t\tRPS_CTR_ADD(q->st->processed, sent);',
      '\t\t\tif (1) {\n\t\t\t\tRPS_CTR_ADD(q->st->processed, sent);',
      ['integration-consumers'], "a second group's copies counted as processed too"),
    M('consumer-wait-ignored', 'consumers', 'lib/stages/share.c',
      '\treturn q->wait && why == RPS_DROP_CONSUMER_FULL &&',
      '\treturn 0 && why == RPS_DROP_CONSUMER_FULL &&',
      ['integration-consumers-more'],
      'backpressure to a full consumer drops instead of waiting'),
    M('group-copies-counted', 'consumers', 'app/datapath/worker_loop.c',
      '\t\t\tif (g > 0 || o->nb_fwd > 0)\n\t\t\t\trps_txq_set_secondary(q);',
      '\t\t\tif (o->nb_fwd > 0)\n\t\t\t\trps_txq_set_secondary(q);',
      ['integration-consumers'], "a second group's copies counted as processed and "
      "forwarded, as if they were the packets' own fate"),
    M('consumers-over-workers', 'refusals', 'app/setup/consumers.c',
      '\t\tif (kg <= nw)\n\t\t\tcontinue;', '\t\tif (kg <= nw + 1)\n\t\t\tcontinue;',
      ['integration-consumers'], 'one consumer more than workers is accepted'),
    # ---- consumers in the path (--consumer-mode inline)
    M('inline-ring-ignored', 'inline', 'lib/stages/share.c',
      'rps_memif_tx_ring(q->memif, q->ring, pkts + done',
      'rps_memif_tx_ring(q->memif, 0, pkts + done',
      ['integration-inline-consumers'],
      "every direction sent on the consumer's first ring: its returns leave by the wrong "
      "port"),
    M('inline-fail-open-lost', 'inline', 'lib/stages/output.c',
      '\t\trps_consumer_flush(q);\n\t\tif (unlikely(q->open_n != 0))\n\t\t\tfail_open_send(q);',
      '\t\trps_consumer_flush(q);\n\t\tif (unlikely(q->open_n != 0))\n\t\t\tq->open_n = 0;',
      ['integration-inline-consumers'],
      '--consumer-fail open forgets the packets it should forward'),
    M('inline-returns-unpolled', 'inline', 'app/datapath/worker_loop.c',
      '\t\t\treturned = worker_returns(w);\n\t\t\theld = consumer_held(w);',
      '\t\t\treturned = 0;\n\t\t\theld = consumer_held(w);',
      ['integration-inline-consumers'],
      'a consumer\'s returns taken only at exit: nothing crosses while it runs'),
    M('inline-verdict-counted-drop', 'inline', 'lib/stages/share.c',
      '\tif (q->fail_open != NULL) {',
      '\tif (q->fail_open == NULL && 0) {',
      ['integration-inline-consumers'],
      '--consumer-fail open drops what it should forward'),
    # ---- consumer groups' filters
    M('filter-ignored', 'filters', 'lib/stages/output.c',
      '\tif (likely(fs == NULL))\n\t\treturn mask;',
      '\tif (likely(fs == NULL) || 1)\n\t\treturn mask;',
      ['integration-filters', 'integration-inline-consumers'],
      'the groups\' filters never run: every group receives everything'),
    M('filter-group0-uncounted', 'filters', 'lib/stages/output.c',
      '\t\t\t\tif (!(mask & 1))\n\t\t\t\t\tcount_consumed(c, pkts[i]);',
      '\t\t\t\tif (!(mask & 1) && 0)\n\t\t\t\t\tcount_consumed(c, pkts[i]);',
      ['integration-filters'],
      'a packet group 0\'s filter refuses but another group takes is never counted'),
    M('filter-ld-ind-unrepaired', 'filters', 'lib/stages/filter.c',
      '\t\t\tin[i].src_reg = EBPF_REG_7; /* cBPF\'s X */',
      '\t\t\t(void)0; /* cBPF\'s X */',
      ['unit-filter'],
      'rte_bpf_convert()\'s indirect byte loads read the wrong offset'),
    M('filter-reload-unpublished', 'filters', 'app/control/control.c',
      '\t\trps_app_filters_publish(app, filters, 1);',
      '\t\trps_filter_set_free(filters);',
      ['integration-filters'],
      'a reload that changes a filter is said to apply but the workers keep the old one'),
    # ---- 32-bit ring slots
    M('slots-decode-shift', 'slots', 'lib/rps/rps_backlog.h',
      '((uintptr_t)slot << RPS_SLOT_SHIFT));',
      '((uintptr_t)slot << (RPS_SLOT_SHIFT - 1)));',
      ['unit-backlog'],
      'a slot comes back as another address than the mbuf that went in'),
    M('slots-recycle-unguarded', 'slots', 'lib/rps/rps_backlog.h',
      '\t\tif (unlikely(far != 0)) {',
      '\t\tif (unlikely(far != 0 && 0)) {',
      ['unit-backlog'],
      'an mbuf the slots cannot name goes onto the return ring and comes back as another'),
    # ---- the stages
    M('parse-ihl-unchecked', 'stages', 'lib/stages/parse.c',
      '\tif (ihl < 20)\n\t\treturn RPS_DROP_BAD_IHL;',
      '\tif (ihl < 4)\n\t\treturn RPS_DROP_BAD_IHL;',
      ['unit-parse', 'integration-corpus-0'], 'an IPv4 header shorter than 20 bytes passes'),
    M('validate-ttl-unchecked', 'stages', 'lib/stages/validate.c',
      '\tif (ip->time_to_live == 0)\n\t\treturn RPS_DROP_TTL_ZERO;',
      '\tif (ip->time_to_live == 0 && 0)\n\t\treturn RPS_DROP_TTL_ZERO;',
      ['unit-validate'], 'TTL 0 passes'),
    M('validate-ip-cksum-unchecked', 'stages', 'lib/stages/validate.c',
      '\t\tif (rps_raw_cksum(ip, l3) != 0xffff)',
      '\t\tif (rps_raw_cksum(ip, l3) == 0)',
      ['unit-validate', 'integration-steering'], 'a bad IPv4 header checksum passes'),
    M('pipeline-stage-out-wrong', 'stages', 'lib/stages/pipeline.c',
      '\t\tRPS_CTR_ADD(st->stage_out[id], n);', '\t\tRPS_CTR_ADD(st->stage_out[id], n + 1);',
      ['integration-rules', 'integration-wake'], "a stage's out count one too many"),
    # ---- reloads and refusals
    M('burst-range-unchecked', 'refusals', 'lib/control/settings.c',
      '\t\t.lo = 1, .hi = 512, .what = "", .unit = " packets",\n\t\t.def = "64",',
      '\t\t.lo = 1, .hi = 4096, .what = "", .unit = " packets",\n\t\t.def = "64",',
      ['unit-settings', 'integration-cli', 'integration-docs'], '--burst above 512 accepted'),
    M('reasm-absorbed-not-processed', 'stages', 'lib/stages/reassemble.c',
      '\t\tRPS_CTR_ADD(st->processed, absorbed);', '\t\t(void)absorbed;',
      ['unit-reassemble', 'integration-steering'],
      'fragments absorbed into a datagram counted nowhere'),
    M('flow-created-not-counted', 'stages', 'lib/stages/flow.c',
      '\tif (bc.created != 0)\n\t\tRPS_CTR_ADD(c->st->flows_created, bc.created);',
      '\tif (bc.created != 0)\n\t\t(void)bc;',
      ['unit-flow', 'integration-flows'], 'flows_created never counted'),
    M('tx-too-big-no-port', 'accounting', 'lib/stages/output.c',
      '\trps_stats_port_drop(q->st, m, RPS_DROP_TX_TOO_BIG);\n\trte_pktmbuf_free(m);',
      '\trte_pktmbuf_free(m);',
      ['integration-tx-mtu'], 'tx_too_big drops not counted against their ingress port'),
    M('order-check-blind', 'data path', 'app/datapath/worker_loop.c',
      '\t\t\tRPS_CTR_ADD(st->reordered, rps_order_check(&w->app->lc.order, pkts, (uint16_t)n));',
      '\t\t\t(void)rps_order_check(&w->app->lc.order, pkts, (uint16_t)n);',
      ['integration-reorder'], '--check-order never counts what it finds reordered'),
    # ---- reloads and refusals (more)
    M('reload-map-kept', 'reloads', 'app/control/control.c',
      '\t\tsets[q] = s != NULL ? *s : app->ctl.map_sets[q]; /* no line: the map stays */',
      '\t\tsets[q] = s != NULL && 0 ? *s : app->ctl.map_sets[q]; /* no line: the map stays */',
      ['integration-live', 'integration-config-settings'],
      "a reload keeps the running map whatever the file says"),
    M('reload-failed-not-counted', 'reloads', 'app/control/control.c',
      '\t\tapp->ctl.reloads_failed++;', '\t\t;',
      ['integration-config-fifo', 'integration-config-partial'],
      'a refused reload is not counted in reloads_failed'),
    M('reload-rebalance-unchecked', 'reloads', 'app/control/control.c',
      '\tif (rb.on && !safe) {', '\tif (rb.on && !safe && 0) {',
      ['integration-config-settings'],
      'a reload turns the rebalancer on without reorder_safe'),
    # ---- telemetry and metrics
    M('busy-percent-inverted', 'telemetry', 'app/observability/tel_lcores.c',
      '\ttel_u64(c, "busy_percent", st->polls ? st->busy_polls * 100 / st->polls : 0);',
      '\ttel_u64(c, "busy_percent", st->polls ? (st->polls - st->busy_polls) * 100 / '
      'st->polls : 0);',
      ['integration-wake'], 'busy_percent is the share of empty polls'),
    M('cpu-ms-user-only', 'telemetry', 'app/observability/lcore_state.c',
      '\treturn (uint64_t)(ut + st) * 1000 / (uint64_t)hz;',
      '\treturn (uint64_t)(ut + st) * 100 / (uint64_t)hz;',
      ['integration-wake'], 'cpu_ms in tenths of its unit'),
    M('lcore-state-sleeping-as-polling', 'telemetry', 'app/observability/lcore_state.c',
      '\tcase RPS_WAKE_SLEEP:\n\t\treturn "sleeping";',
      '\tcase RPS_WAKE_SLEEP:\n\t\treturn "polling";',
      ['integration-idle', 'integration-live'], 'a sleeping worker reported polling'),
    M('stats-rx-is-processed', 'telemetry', 'app/observability/tel_lcores.c',
      '\ttel_u64(o, "rx_packets", s->rx.rx_packets);',
      '\ttel_u64(o, "rx_packets", s->total.processed);',
      ['integration-live', 'integration-metrics'], "/rps/stats' rx_packets is processed"),
    M('metrics-backlog-drops-on-rx', 'telemetry', 'app/observability/metrics.c',
      '\t\t\tif (steering && rows[i].worker < 0 &&',
      '\t\t\tif (steering && rows[i].worker >= 0 &&',
      ['integration-metrics'], "/metrics shows backlog_full on the RX lcore, not the worker"),
    # ---- elephants (flow.c's marks, buckets.c's isolation)
    M('elephant-estimate-prev-ignored', 'elephants', 'lib/stages/flow.c',
      '\treturn e->cur + (uint64_t)((double)e->prev * (w - el) / w);',
      '\treturn e->cur;',
      ['unit-flow'], 'the sliding window forgets the previous fixed window: a fixed window'),
    M('elephant-marked-on-bound', 'elephants', 'lib/stages/flow.c',
      '\t    eleph_estimate(t, e, now) <= t->eleph_bytes)',
      '\t    0)',
      ['unit-flow'], 'marked once the two windows together pass the rate, not the estimate'),
    M('elephant-bypass-not-pending', 'elephants', 'lib/stages/flow.c',
      '\tif (t->conf.elephant_bypass && t->bypass_from != NULL && t->bypass_from[pos] == 0)',
      '\tif (0 && t->bypass_from != NULL && t->bypass_from[pos] == 0)',
      ['unit-flow', 'integration-elephants'], '--elephant-action bypass bypasses nothing'),
    M('elephant-isolate-keeps-none', 'elephants', 'app/control/buckets.c',
      '\t\t\tsum[top] = UINT64_MAX; /* kept */', '\t\t\tsum[top] = 0; /* kept */',
      ['integration-elephants'], "isolate moves the elephant's own bucket off its worker too"),
]


# --------------------------------------------------------------------------- the runner

def by_name():
    return {m.name: m for m in MUTANTS}


def check_list(root=ROOT):
    """Each mutant's text occurs exactly once in its file, changes one line, and the
    names are unique. @return the problems."""
    errs = []
    names = [m.name for m in MUTANTS]
    for n in sorted({n for n in names if names.count(n) > 1}):
        errs.append('%s: name used twice' % n)
    for m in MUTANTS:
        path = os.path.join(root, m.file)
        if not os.path.exists(path):
            errs.append('%s: %s does not exist' % (m.name, m.file))
            continue
        with open(path) as f:
            text = f.read()
        k = text.count(m.orig)
        if k != 1:
            errs.append('%s: its text occurs %d times in %s (once expected): %r' % (
                m.name, k, m.file, m.orig[:60]))
            continue
        a, b = m.orig.split('\n'), m.repl.split('\n')
        if len(a) == len(b):
            one = sum(x != y for x, y in zip(a, b)) == 1
        else:   # a line removed (or added), the others as they were
            one = abs(len(a) - len(b)) == 1 and (set(a) <= set(b) or set(b) <= set(a))
        if not one:
            errs.append('%s: does not change exactly one line' % m.name)
        if not m.tests:
            errs.append('%s: no test listed to kill it' % m.name)
    return errs


def sh(cmd, cwd, log, timeout=None, env=None):
    """Run cmd in its own process group, output appended to log. @return (rc or None on
    timeout, seconds)."""
    t0 = time.monotonic()
    with open(log, 'a') as out:
        out.write('$ %s\n' % ' '.join(cmd))
        out.flush()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # meson test passes SIGTERM on to its tests, which end their dpdk-rps
            for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            rc = None
    return rc, time.monotonic() - t0


class Slot:
    """A scratch copy of the tree with its own build directory."""

    def __init__(self, workdir, index):
        self.dir = os.path.join(workdir, 'slot%d' % index)
        self.src = os.path.join(self.dir, 'src')
        self.build = os.path.join(self.src, 'build')
        self.log = os.path.join(self.dir, 'log.txt')

    def sync(self):
        """Copy the tree's tracked and untracked (not ignored) files where they differ;
        remove what the last sync copied and the tree no longer has."""
        files = subprocess.run(['git', 'ls-files', '-z', '--cached', '--others',
                                '--exclude-standard'], cwd=ROOT, check=True,
                               capture_output=True).stdout.decode().split('\0')
        files = [f for f in files if f and os.path.isfile(os.path.join(ROOT, f))]
        os.makedirs(self.src, exist_ok=True)
        manifest = os.path.join(self.dir, 'manifest')
        old = set()
        if os.path.exists(manifest):
            with open(manifest) as f:
                old = set(f.read().split('\0')) - {''}
        copied = 0
        for f in files:
            a, b = os.path.join(ROOT, f), os.path.join(self.src, f)
            with open(a, 'rb') as x:
                data = x.read()
            if os.path.exists(b):
                with open(b, 'rb') as y:
                    if y.read() == data:
                        continue
            os.makedirs(os.path.dirname(b), exist_ok=True)
            with open(b, 'wb') as y:
                y.write(data)
            shutil.copymode(a, b)
            copied += 1
        for f in old - set(files):
            try:
                os.unlink(os.path.join(self.src, f))
            except FileNotFoundError:
                pass
        with open(manifest, 'w') as f:
            f.write('\0'.join(files))
        return copied

    def configure(self):
        if os.path.exists(os.path.join(self.build, 'build.ninja')):
            return True
        rc, _ = sh(['meson', 'setup', self.build] + BUILD_OPTS, self.src, self.log)
        return rc == 0

    def compile(self):
        rc, dt = sh(['ninja', '-C', self.build], self.src, self.log)
        return rc == 0, dt


# Not run against a mutant: it checks that the mutants apply to the tree, and in a copy with
# one applied that one does not (it would kill every mutant).
NOT_AGAINST_MUTANTS = {'mutants-apply'}


def list_tests(slot, suites):
    """The names of the tests of @p suites (None: every test) in slot's build, in meson's
    order, but those of NOT_AGAINST_MUTANTS."""
    cmd = ['meson', 'test', '-C', slot.build, '--no-rebuild', '--list']
    for s in suites or []:
        cmd += ['--suite', s]
    out = subprocess.run(cmd, cwd=slot.src, capture_output=True, text=True).stdout
    names = [ln.split(' / ', 1)[1].strip() for ln in out.splitlines() if ' / ' in ln]
    return [n for n in names if n not in NOT_AGAINST_MUTANTS]


def test_results(slot):
    """The last meson test run of slot: (the names of the tests that passed or were
    skipped, the tests that failed as 'NAME (RESULT)'). An interrupted test is neither."""
    log = os.path.join(slot.build, 'meson-logs', 'testlog.json')
    done, bad = [], []
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                try:
                    t = json.loads(line)
                except ValueError:
                    continue
                name, res = t['name'].split(' / ')[-1], t.get('result')
                if res in ('OK', 'SKIP', 'EXPECTEDFAIL'):
                    done.append(name)
                elif res != 'INTERRUPT':
                    bad.append('%s (%s)' % (name, res))
    return done, bad


def run_tests(slot, names, timeout, jobs=2):
    """meson test in slot: the tests @p names, stopping at the first failure.
    @return (verdict, failed, seconds, passed): 'pass', 'fail', 'timeout' or 'error'."""
    log = os.path.join(slot.build, 'meson-logs', 'testlog.json')
    if os.path.exists(log):
        os.unlink(log)
    if not names:
        return 'pass', [], 0.0, []
    cmd = ['meson', 'test', '-C', slot.build, '--no-rebuild', '--maxfail', '1',
           '--num-processes', str(jobs), '--print-errorlogs'] + list(names)
    rc, dt = sh(cmd, slot.src, slot.log, timeout=timeout)
    done, bad = test_results(slot)
    if rc is None:
        return 'timeout', bad, dt, done
    if rc != 0 and not bad:
        return 'error', ['meson test exit %d, no test failed: see %s' % (rc, slot.log)], dt, done
    return ('pass' if rc == 0 and not bad else 'fail'), bad, dt, done


def run_confirmed(slot, names, deadline, confirm):
    """run_tests() of @p names until @p deadline (time.monotonic()); with @p confirm, a
    failure counts only when the failing test fails again alone: one that passes then was
    a flaky failure, noted, and the tests not yet passed run on.
    @return (verdict, failed, flaky)."""
    flaky, names = [], list(names)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return 'timeout', [], flaky
        verdict, bad, _, done = run_tests(slot, names, left)
        if verdict != 'fail' or not confirm:
            return verdict, bad, flaky
        first = bad[0].split(' (')[0]
        left = deadline - time.monotonic()
        if left <= 0:
            return 'timeout', bad, flaky
        again, bad2, _, _ = run_tests(slot, [first], left)
        if again != 'pass':
            return again, [b + ', again alone' for b in bad2] or bad, flaky
        flaky.append(first)
        names = [t for t in names if t not in done and t not in flaky]


MODES = {
    'quick': ['unit', 'quick'],   # scripts/run-tests.sh --quick's tests
    'full': None,                 # every test of the plain build
    'targeted': 'targeted',       # each mutant's own tests
}


def apply(slot, m):
    path = os.path.join(slot.src, m.file)
    with open(path) as f:
        text = f.read()
    if text.count(m.orig) != 1:
        raise RuntimeError('%s: its text is not once in %s' % (m.name, m.file))
    with open(path, 'w') as f:
        f.write(text.replace(m.orig, m.repl))
    return path, text


def restore(path, text):
    with open(path, 'w') as f:
        f.write(text)
    # a new mtime (now): the next build compiles the file again, unmutated


def judge(slot, m, mode, timeout, command_tests, confirm=True):
    """Apply m in slot, build, test, restore. @return a result dict."""
    r = {'name': m.name, 'area': m.area, 'file': m.file, 'why': m.why}
    path, text = apply(slot, m)
    t0 = time.monotonic()
    try:
        ok, bt = slot.compile()
        r['build_s'] = round(bt, 1)
        if not ok:
            r['verdict'] = 'INVALID'
            return r
        first = [t for t in m.tests if command_tests is None or t in command_tests]
        deadline = t0 + timeout
        verdict, bad, flaky = run_confirmed(slot, first, deadline, confirm)
        if mode != 'targeted' and verdict == 'pass':
            rest = [t for t in command_tests if t not in first]
            verdict, bad, more = run_confirmed(slot, rest, deadline, confirm)
            flaky += more
        r['failed'] = bad
        if flaky:
            r['flaky'] = flaky
        r['verdict'] = {'pass': 'SURVIVED', 'fail': 'KILLED', 'timeout': 'TIMEOUT',
                        'error': 'ERROR'}[verdict]
        return r
    finally:
        restore(path, text)
        r['seconds'] = round(time.monotonic() - t0, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument('--quick', dest='mode', action='store_const', const='quick',
                   help='meson test --suite unit --suite quick (run-tests.sh --quick)')
    g.add_argument('--full', dest='mode', action='store_const', const='full',
                   help='every test of the plain build')
    g.add_argument('--targeted', dest='mode', action='store_const', const='targeted',
                   help="only each mutant's listed tests")
    g.add_argument('--list', dest='mode', action='store_const', const='list',
                   help='print the mutants')
    g.add_argument('--check', dest='mode', action='store_const', const='check',
                   help='check that every mutant still applies to the tree (exit 2 if not)')
    ap.add_argument('--only', default='', help='NAME[,NAME...]: these mutants only')
    ap.add_argument('--tests', default='', help='NAME[,NAME...]: with --targeted, run these '
                    "tests instead of each mutant's own (does this test kill it?)")
    ap.add_argument('--jobs', type=int, default=1, help='mutants at once, each in its own '
                    'copy (default 1: the integration tests are not parallel-safe)')
    ap.add_argument('--timeout', type=float, default=None,
                    help='seconds of tests per mutant (default: targeted 600, quick 900, '
                    'full 3000)')
    ap.add_argument('--workdir', default=os.path.join(ROOT, 'build-mutate'),
                    help='the scratch copies (default build-mutate/)')
    ap.add_argument('--no-confirm', action='store_true',
                    help='count a failure at once (default: the failing test is run again '
                    'alone, and one that passes then was a flaky failure, not a kill)')
    ap.add_argument('--no-baseline', action='store_true',
                    help='skip the run of the command on the unmutated tree')
    ap.add_argument('--json', help='write the results to this file')
    a = ap.parse_args()
    mode = a.mode or 'quick'

    errs = check_list()
    if mode == 'check':
        for e in errs:
            print('STALE: ' + e)
        print('%d mutants, %d stale' % (len(MUTANTS), len(errs)))
        return 2 if errs else 0
    chosen = MUTANTS
    if a.only:
        want = [n.strip() for n in a.only.split(',') if n.strip()]
        unknown = [n for n in want if n not in by_name()]
        if unknown:
            print('unknown mutant(s): %s (--list names them)' % ', '.join(unknown))
            return 2
        chosen = [by_name()[n] for n in want]
    if a.tests:
        if mode != 'targeted':
            print('--tests goes with --targeted')
            return 2
        tests = [t.strip() for t in a.tests.split(',') if t.strip()]
        chosen = [Mutant(**dict(m.__dict__, tests=tests)) for m in chosen]
    if mode == 'list':
        for m in chosen:
            print('%-32s %-11s %-36s %s' % (m.name, m.area, m.file, ' '.join(m.tests)))
            if m.why:
                print('%32s %s' % ('', m.why))
        print('%d mutants' % len(chosen))
        return 0
    stale = [e for e in errs if e.split(':')[0] in {m.name for m in chosen}]
    if stale:
        for e in stale:
            print('STALE: ' + e)
        return 2
    timeout = a.timeout or {'targeted': 600, 'quick': 900, 'full': 3000}[mode]

    slots = [Slot(a.workdir, i) for i in range(max(1, a.jobs))]
    t0 = time.monotonic()
    for s in slots:
        os.makedirs(s.dir, exist_ok=True)
        open(s.log, 'w').close()
        n = s.sync()
        if not s.configure() or not s.compile()[0]:
            print('the unmutated tree does not build in %s: see %s' % (s.src, s.log))
            return 2
        print('%s: %d file(s) copied, built (log %s)' % (s.src, n, s.log), flush=True)
    known = list_tests(slots[0], None)
    unknown = sorted({t for m in chosen for t in m.tests} - set(known))
    if unknown:
        print('no such test in %s: %s' % (slots[0].build, ', '.join(unknown)))
        return 2
    command_tests = None if mode == 'targeted' else list_tests(slots[0], MODES[mode])
    if not a.no_baseline:
        if mode == 'targeted':
            names = [t for t in known if t in {t for m in chosen for t in m.tests}]
        else:
            names = command_tests
        tb = time.monotonic()
        verdict, bad, flaky = run_confirmed(slots[0], names, tb + 2 * timeout,
                                            not a.no_confirm)
        print('baseline (unmutated): %s in %.0f s%s%s' % (
            verdict, time.monotonic() - tb, ': ' + ', '.join(bad) if bad else '',
            ' (failed once, passed again alone: %s)' % ', '.join(flaky) if flaky else ''),
            flush=True)
        if verdict != 'pass':
            print('the command fails without a mutant: fix that first (or --no-baseline); '
                  'log: %s' % slots[0].log)
            return 2

    todo = queue.Queue()
    for m in chosen:
        todo.put(m)
    results, lock = [], threading.Lock()

    def worker(slot):
        while True:
            try:
                m = todo.get_nowait()
            except queue.Empty:
                return
            try:
                r = judge(slot, m, mode, timeout, command_tests, not a.no_confirm)
            except Exception as e:  # noqa: BLE001 (reported, the others go on)
                r = {'name': m.name, 'area': m.area, 'file': m.file, 'verdict': 'ERROR',
                     'error': str(e)}
            with lock:
                results.append(r)
                what = r['verdict']
                if r.get('failed'):
                    what += ' by ' + ', '.join(r['failed'][:2])
                if r.get('flaky'):
                    what += ' [failed once, passed again alone: %s]' % ', '.join(r['flaky'])
                print('%-32s %s (%.0f s)' % (m.name, what, r.get('seconds', 0)), flush=True)

    threads = [threading.Thread(target=worker, args=(s,)) for s in slots]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    order = {m.name: i for i, m in enumerate(chosen)}
    results.sort(key=lambda r: order[r['name']])
    count = {v: sum(r['verdict'] == v for r in results)
             for v in ('KILLED', 'TIMEOUT', 'SURVIVED', 'INVALID', 'ERROR')}
    equiv = {m.name for m in chosen if m.equivalent}
    killed = count['KILLED'] + count['TIMEOUT']
    survived = [r['name'] for r in results if r['verdict'] == 'SURVIVED']
    counted = killed + len([n for n in survived if n not in equiv])
    score = 100.0 * killed / counted if counted else 0.0
    print('\n%s: %d mutants: %d killed (%d by timeout), %d survived%s, %d invalid, %d errors; '
          'score %d/%d = %.1f%% (%.0f min)' % (
              mode, len(results), killed, count['TIMEOUT'], len(survived),
              ' (%d argued equivalent)' % len(set(survived) & equiv) if equiv else '',
              count['INVALID'], count['ERROR'], killed, counted, score,
              (time.monotonic() - t0) / 60))
    for n in survived:
        print('  survived: %s%s' % (n, ' (equivalent: %s)' % by_name()[n].equivalent
                                    if n in equiv else ''))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'mode': mode, 'date': time.strftime('%Y-%m-%d %H:%M'),
                       'score': round(score, 1), 'killed': killed, 'counted': counted,
                       'results': results}, f, indent=1)
    return 1 if [n for n in survived if n not in equiv] or count['ERROR'] else 0


if __name__ == '__main__':
    sys.exit(main())
