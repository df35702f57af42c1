/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkprof: the collector's logic. The one include for kprofctl.
 * Pure logic (no device needed): records, spools, tt-metal logs,
 * aggregation, time sync, reports, host clock-state file.
 */
#ifndef KPROF_H
#define KPROF_H

#include "kprof_err.h"
#include "kprof_rec.h"
#include "kprof_spool.h"
#include "kprof_timesync.h"
#include "kprof_ttmetal.h"
#include "kprof_agg.h"
#include "kprof_report.h"
#include "kprof_clockstate.h"

#endif /* KPROF_H */
