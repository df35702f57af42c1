// SPDX-License-Identifier: GPL-2.0
/*
 * report.html (kprof_html): escaping, determinism, inputs it uses, and
 * only those the report wrote itself (not others in its directory).
 */
#include "kt.h"
#include "kprof_array_size.h"
#include "kprof_html.h"
#include "kprof_outdir.h"

#include <sys/stat.h>
#include <unistd.h>

static char dir[64];	/* made by mkdtemp in main */
/* the roofline table's row for matmul */
#define MATMUL_ROOF_ROW \
	"<tr><td>matmul</td><td>4000</td><td>61.5%</td><td>100</td><td>100</td><td>76800</td><td>0.1</td></tr>"
/* the header of ops.csv as tt-metal writes it, in the columns used */
#define OPS_HEADER \
	"OP CODE,GLOBAL CALL COUNT,CORE COUNT,HOST DURATION [ns],DEVICE FW DURATION [ns],DEVICE KERNEL DURATION [ns],DEVICE FW START TS [ns],DEVICE FW END TS [ns]\n"
static struct kprof_outdir *od;	/* dir, as the report's output directory */

/* an output of the report, written as the report writes it */
static void put(const char *name, const char *text)
{
	struct kprof_err err = { 0 };
	struct kprof_outfile of;

	KT_CHECK(kprof_outfile_create(od, name, &of, &err) == 0, "create %s: %s", name, err.msg);
	if (!of.f)
		return;
	fputs(text, of.f);
	KT_CHECK(kprof_outfile_commit(&of, 0, &err) == 0, "commit %s: %s", name, err.msg);
}

/* a file in the directory the report did not write (an older report's,
 * or planted)
 */
static void plant(const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	KT_CHECK(f, "create %s", p);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *slurp(const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return kt_slurp(p, NULL);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

#define EVIL "<script>alert(1)</script>&\"'"
#define EVIL_CSV "\"<script>alert(1)</script>&\"\"'\""

static char *build(void)
{
	struct kprof_err err = { 0 };

	KT_CHECK(kprof_html_write(od, &err) == 0, "kprof_html_write: %s", err.msg);
	return slurp("report.html");
}

int main(void)
{
	char *a, *b;

	snprintf(dir, sizeof(dir), "/tmp/kprof-test-html-XXXXXX");
	KT_CHECK(mkdtemp(dir), "mkdtemp");
	{
		struct kprof_err err = { 0 };

		od = kprof_outdir_open(dir, 0, (uid_t)-1, (gid_t)-1, &err);
		KT_CHECK(od, "outdir: %s", err.msg);
		if (!od)
			return kt_done("test_html");
		/* in the directory, but not written by this report: not read */
		plant("ops.csv",
		      "OP CODE,DEVICE KERNEL DURATION [ns],DEVICE FW DURATION [ns],HOST DURATION [ns]\n"
		      "planted,1,1,1\n");
		KT_CHECK(kprof_html_write(od, &err) < 0 && strstr(err.msg, "ops.csv"),
			 "no ops.csv of this report: %s", err.msg);
		plant("report.md", "# planted " EVIL "\n");
		plant("roofline.csv", "OP CODE,BOUND\nplanted-row,memory-bound\n");
	}
	put("ops.csv", OPS_HEADER
	    "matmul,1,4,100,1000,900,10000,11000\n"
	    EVIL_CSV ",2,4,100,3000,2900,12000,15000\n"
	    "matmul,3,4,100,1000,800,16000,17000\n"
	    "matmul,4,0,100,,,,\n");
	put("host_events.csv",
	    "ROLE,PID,TID,COMM,CMD,ENTER TS [ns],EXIT TS [ns],DURATION [ns],RET,SEQ\n"
	    "launch,5,5,w,0x1,9000,9100,100,0,1\n"
	    "sync,5,5,w,0x2,17000,18000,1000,0,0\n");
	put("summary.txt", "top ops " EVIL "\n");

	/* no trace.json: one device lane from ops.csv */
	a = build();
	KT_CHECK(a, "report.html written");
	if (!a)
		goto out;
	KT_CHECK(!strstr(a, "<script>alert"), "op name is escaped everywhere");
	KT_CHECK(strstr(a, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"),
		 "escaped name in the page");
	KT_CHECK(strstr(a, "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\u0026\\\"'"),
		 "JSON string escaped for <script>");
	KT_CHECK(strstr(a, "<p>4 ops in ops.csv, 2 op kinds."), "op and kind counts");
	KT_CHECK(strstr(a, "\"op\":\"matmul\",\"n\":3,\"nk\":2,\"tot_k\":1700,\"med_k\":850"),
		 "matmul kind data (empty fields are no value)");
	KT_CHECK(strstr(a, "ops.csv DEVICE FW START/END TS"), "fallback lane source");
	KT_CHECK(strstr(a, ">device (all cores)</text>"), "one device lane");
	KT_CHECK(strstr(a, ">launch w (5)</text>") && strstr(a, ">sync w (5)</text>"),
		 "host launch and sync lanes");
	/* 3 device slices + 2 host slices, none merged at this scale */
	KT_EQ_U64(count(a, "<rect "), 5);
	KT_CHECK(strstr(a, "No report.md"), "says report.md is missing");
	KT_CHECK(!strstr(a, "planted"), "files this report did not write are not read");
	KT_CHECK(count(a, "http:") == 1 && count(a, "https:") == 0 && strstr(a, "xmlns=\"http://www.w3.org/2000/svg\""),
		 "no URL but the SVG namespace");
	KT_CHECK(!strstr(a, "<script src") && !strstr(a, "<link"),
		 "nothing loaded from outside");

	/* same inputs, same bytes */
	b = build();
	KT_CHECK(b && !strcmp(a, b), "byte-identical when re-made");
	free(b);
	free(a);

	/* trace.json device tracks; report.md and bubbles.csv embedded */
	put("trace.json", "{\"traceEvents\":[\n"
	    "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"core 0\"}},\n"
	    "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"core 1\"}},\n"
	    "{\"ph\":\"C\",\"pid\":1,\"tid\":0,\"name\":\"clock MHz\",\"ts\":1,\"args\":{\"MHz\":1}},\n"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"matmul\",\"ts\":10.0,\"dur\":1.0,\"args\":{\"seq\":1}},\n"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"matmul\",\"ts\":10.0,\"dur\":1.0,\"args\":{\"seq\":1}},\n"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"\\u003cscript>alert(1)\\u003c/script>&\\\"'\",\"ts\":12.0,\"dur\":3.0,\"args\":{\"seq\":2}}\n"
	    "]}\n");
	put("report.md", "# verdict\nmemory-bound " EVIL "\n\n**bold** \\| pipe `x<y`\n"
	    "- one\n- two\n\n| OP | N |\n|---|---:|\n| a\\|b | 3 |\n<img src=x>\n");
	put("bubbles.csv", "CORE,BUBBLE RATE\n0," EVIL_CSV "\n");
	put("roofline.csv", "OP CODE,BOUND\n\"unterminated\n");
	a = build();
	KT_CHECK(a, "report.html written");
	if (!a)
		goto out;
	KT_CHECK(strstr(a, "Device lanes: trace.json device tracks"), "lanes from trace.json");
	KT_CHECK(strstr(a, ">core 0</text>") && strstr(a, ">core 1</text>"), "one lane per core");
	KT_EQ_U64(count(a, "<rect "), 5);
	KT_CHECK(strstr(a,
			"<div id=\"verdict\">\n<h3>verdict</h3>\n<p>memory-bound &lt;script&gt;"),
		 "report.md rendered: heading, text escaped");
	KT_CHECK(strstr(a, "<strong>bold</strong> | pipe <code>x&lt;y</code>"),
		 "bold, backslash escape, code span");
	KT_CHECK(strstr(a, "<ul>\n<li>one</li>\n<li>two</li>\n</ul>"), "list");
	KT_CHECK(strstr(a,
			"<table class=\"md\"><thead>\n<tr><th>OP</th><th class=\"r\">N</th></tr>\n"
			"</thead><tbody>\n<tr><td>a|b</td><td class=\"r\">3</td></tr>") != NULL,
		 "pipe table with alignment and an escaped pipe");
	KT_CHECK(strstr(a, "<p>&lt;img src=x&gt;</p>"), "raw HTML stays text");
	KT_CHECK(strstr(a, "<table id=\"bubbles\"><tr><th>CORE</th><th>BUBBLE RATE</th></tr>") &&
		 strstr(a, "<td>&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;</td>"),
		 "bubbles.csv as a table, escaped");
	KT_CHECK(!strstr(a, "No report.md"), "no missing-report note");
	KT_CHECK(strstr(a, "roofline.csv could not be read"), "broken CSV: a note");
	KT_CHECK(!strstr(a, "<script>alert"), "still escaped");
	free(a);

	/*
	 * roofline.csv: one point per kind at its summed intensity and rate,
	 * one roof per distinct peak pair; a kind with no FLOPs is in the
	 * table but cannot be placed on log axes.
	 */
	put("roofline.csv", "OP CODE,CORES,TIME [ns],FLOPS,BYTES,PEAK [GFLOP/s],PEAK [GB/s]\n"
	    "matmul,64,1000,100000,1000,131072,768\n"
	    "matmul,64,3000,300000,3000,131072,768\n"
	    EVIL_CSV ",16,2000,1000,4000,32768,192\n"
	    "copy,16,500,0,4000,32768,192\n");
	a = build();
	KT_CHECK(a && strstr(a, "<svg id=\"roofline-chart\""), "roofline chart drawn");
	if (!a)
		goto out;
	KT_EQ_U64(count(a, "<circle "), 2);
	KT_EQ_U64(count(a, "<polyline class=\"roof\""), 2);
	KT_CHECK(strstr(a, "<title>matmul: 100 FLOP/B, 100 GFLOP/s, 61.5% of the time</title>"),
		 "matmul: summed intensity and rate, time share");
	KT_CHECK(strstr(a, MATMUL_ROOF_ROW),
		 "table row: attainable is the bandwidth roof at 100 FLOP/B");
	KT_CHECK(strstr(a, "<tr><td>copy</td><td>500</td><td>7.7%</td><td>-</td>"),
		 "a kind without FLOPs: in the table, not on the chart");
	KT_CHECK(!strstr(a, "<script>alert"), "kind names escaped in the chart");
	free(a);

	/* a trace.json in another layout (all on one line): the fallback lane */
	put("trace.json",
	    "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"matmul\",\"ts\":10.0,\"dur\":1.0}]}\n");
	a = build();
	KT_CHECK(a && strstr(a, "one-event-per-line layout") &&
		 strstr(a, ">device (all cores)</text>"),
		 "one-line trace.json: fallback lane, and the note says why");
	free(a);

	/*
	 * 20000 ops, 5000 kinds: one rect per pixel column of the lane,
	 * the median of each kind exact.
	 */
	{
		struct kprof_err err = { 0 };
		struct kprof_outfile of;
		char p[4096];
		FILE *f;

		KT_CHECK(kprof_outfile_create(od, "ops.csv", &of, &err) == 0,
			 "ops.csv: %s", err.msg);
		f = of.f;
		if (!f)
			goto out;
		fputs(OPS_HEADER, f);
		for (int i = 0; i < 20000; i++)
			fprintf(f, "k%d,%d,1,100,10,%d,%d,%d\n", i % 5000, i + 1,
				i % 5000 == 7 ? 1000 * (i / 5000) : 5, 100 * i, 100 * i + 50);
		KT_CHECK(kprof_outfile_commit(&of, 0, &err) == 0, "ops.csv: %s", err.msg);
		snprintf(p, sizeof(p), "%s/trace.json", dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/host_events.csv", dir);
		unlink(p);
		a = build();
		KT_CHECK(a, "report.html written");
		if (!a)
			goto out;
		KT_CHECK(strstr(a, "<p>20000 ops in ops.csv, 5000 op kinds."), "counts");
		KT_EQ_U64(count(a, "<rect "), 1000);	/* 20 starts in each of 1000 columns */
		KT_CHECK(strstr(a, "20 slices ("), "20 ops per pixel column, merged");
		/* k7: kernel 0, 1000, 2000, 3000 -> median 1500 */
		KT_CHECK(strstr(a,
				"{\"op\":\"k7\",\"n\":4,\"nk\":4,\"tot_k\":6000,\"med_k\":1500,"),
			 "k7's median");
		free(a);
	}
	/*
	 * op slices in kprof_trace's own layout (read without json-c) make
	 * the same report.html as the same events laid out otherwise (a
	 * blank after "pid": json-c reads every line)
	 */
	{
		static const char *const ev[] = {
			"\"tid\":0,\"name\":\"k7\",\"ts\":10.0,\"dur\":1.5,\"args\":{\"seq\":1}",
			"\"tid\":1,\"name\":\"k7\",\"ts\":1.05e1,\"dur\":2,\"args\":{\"seq\":1}",
			"\"tid\":1,\"name\":\"k\\u0038\",\"ts\":13.25,\"dur\":0.5,\"args\":{\"seq\":2}",
			"\"tid\":0,\"name\":\"op 3\",\"ts\":14.0004,\"dur\":1,\"args\":{\"seq\":3}",
			"\"tid\":0,\"name\":\"k9\",\"ts\":-2.5,\"dur\":30.0,\"args\":{\"seq\":-4}",
			"\"tid\":1,\"name\":\"k10\",\"ts\":16.0,\"dur\":1,\"args\":{\"seq\":99999999999999999999}",
			"\"tid\":7,\"name\":\"k11\",\"ts\":17.0,\"dur\":1,\"args\":{\"seq\":5}",
			"\"tid\":0,\"name\":\"k12\",\"ts\":18.0,\"dur\":1.0,\"args\":{\"seq\":6,\"x\":1}",
		};
		char *t[2] = { NULL, NULL }, *html[2];
		size_t len;

		for (int v = 0; v < 2; v++) {
			FILE *f = open_memstream(&t[v], &len);

			fputs("{\"traceEvents\":[\n"
			      "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"core 0\"}},\n"
			      "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"core 1\"}},\n",
			      f);
			for (size_t i = 0; i < ARRAY_SIZE(ev); i++)
				fprintf(f, "{\"ph\":\"X\",\"cat\":\"op\",\"pid\":%s1,%s},\n",
					v ? " " : "", ev[i]);
			fputs("{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"x\",\"args\":{}}\n", f);
			fputs("]}\n", f);
			fclose(f);
			put("trace.json", t[v]);
			html[v] = build();
		}
		KT_CHECK(html[0] && html[1] && strstr(html[0], "trace.json device tracks") &&
			 !strcmp(html[0], html[1]),
			 "op slices read without json-c: the same report.html");
		for (int v = 0; v < 2; v++) {
			free(t[v]);
			free(html[v]);
		}
	}
out:
	kprof_outdir_close(od);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		KT_CHECK(system(cmd) == 0, "cleanup");
	}
	return kt_done("test_html");
}
