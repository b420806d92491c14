"""pi-job-search.jsonl: the job-search scenario of the single-pass compaction design.

The criteria and the scoring rubric are read from search-prompt.txt at the start;
several search rounds with ~10k-char tool results follow; the scoring decisions
that need the rubric come late, and the report file is written at the end.
"""

from __future__ import annotations

import json
import random

from .pi import PiSession

SEARCH_PROMPT = """# Daily contract search — Tom Haverford (.NET)

Run every weekday morning. Write the result to todays-jobs-<YYYY-MM-DD>.md in this folder.

## What I want
- Role: senior .NET developer / senior C# engineer / .NET tech lead (hands-on). No pure architect roles,
  no management-only roles.
- Seniority: senior or lead. Skip anything titled junior, mid, graduate or "developer II".
- Location: fully remote within the UK. Hybrid is acceptable ONLY if the office is in Bristol or Bath and
  at most 1 day a week on site. No London commuting.
- Rate: £500-700/day. Below £500 is a no. Above £700 is fine but double check it's not a permie role
  advertised as a day rate.
- Contract length: 3+ months. Outside IR35 preferred; inside IR35 only at £600/day or more.
- Stack: C#, .NET 8 (or 6+ with a migration plan), ASP.NET Core, Azure (Functions, Service Bus, AKS is
  a plus), SQL Server / EF Core. Bonus: event-driven architecture, Blazor is a mild plus, NOT WPF/WinForms.
- Avoid: gambling, adtech, defence. Recruitment agencies are fine but prefer direct or Tier-1.

## Sources
1. LinkedIn jobs search (last 24h): ".NET contract remote UK", "senior C# contract", "ASP.NET Core contract".
2. Gmail: JobServe alerts (from: alerts@jobserve.com, last 2 days) and emails from recruiters I've
   worked with (label: recruiters).

## Scoring rubric (score every role that passes the hard filters, 0-10)
- Technical stack match — 30%
- Remote policy — 20%
- Rate / salary — 25%
- Growth & interest (domain, greenfield vs maintenance, team quality signals) — 25%
Weighted score = 0.30*stack + 0.20*remote + 0.25*rate + 0.25*growth, rounded to one decimal.

## Output
- Table of all scored roles sorted by weighted score: company, title, rate, IR35, remote policy,
  score, link.
- Short note for the top 3: why, and anything to ask the recruiter.
- List of rejected roles with the one-line reason (so I can see you looked).
- Never apply to anything, never reply to emails. Read-only.
"""

COMPANIES = [
    ("Northwind Freight", "logistics", "direct"), ("Halcyon Health Analytics", "healthtech", "direct"),
    ("Brightwater Energy", "energy trading", "Harnham"), ("Quarry & Finch", "legal tech", "direct"),
    ("Tessellate Insurance", "insurance", "Hays"), ("Riverbank Building Society", "banking", "Lorien"),
    ("Copperline Payments", "payments", "Harvey Nash"), ("Meridian Civic", "public sector (DWP supplier)", "Sanderson"),
    ("Oakfield Learning", "edtech", "direct"), ("Saltmarsh Games", "gambling", "Nigel Frank"),
    ("Vantage AdWorks", "adtech", "Nigel Frank"), ("Halberd Systems", "defence", "Computer Futures"),
    ("Pennant Retail Group", "retail", "Hays"), ("Larkspur Pensions", "pensions", "direct"),
    ("Cobalt Mobility", "EV charging", "Harnham"), ("Greyfriars Clinical", "clinical trials", "Lorien"),
]

TITLES = ["Senior .NET Developer", "Senior C# Engineer (Contract)", ".NET Tech Lead", "Senior Backend Engineer (.NET)",
          "Lead .NET Developer - Azure", "Senior Software Engineer, Platform (.NET 8)", "Contract .NET Developer",
          "Senior Full Stack .NET Developer (Blazor)"]

RESP = [
    "Design, build and operate ASP.NET Core services that process {n} million events a day.",
    "Lead the migration of a .NET Framework 4.8 monolith to .NET 8 services running on AKS.",
    "Own the integration layer between our core platform and {partner} using Azure Service Bus.",
    "Pair with product and UX to shape features from discovery through to production.",
    "Improve observability across the estate: OpenTelemetry, Application Insights dashboards and alerting.",
    "Review pull requests, mentor two mid-level engineers and help set coding standards.",
    "Write and maintain automated tests at unit, integration and contract level (xUnit, Testcontainers, Pact).",
    "Tune SQL Server queries and EF Core mappings on tables with hundreds of millions of rows.",
    "Build Azure Functions for scheduled reconciliation jobs and replace a fleet of Windows services.",
    "Contribute to infrastructure as code with Bicep and GitHub Actions pipelines.",
    "Participate in a light-touch on-call rota (one week in six, paid separately).",
    "Help define an event-driven architecture using domain events and the outbox pattern.",
    "Maintain a WPF desktop client used by the back-office team while the web replacement is built.",
    "Work closely with the data team to publish clean event streams into the lakehouse.",
    "Harden authentication flows (OpenID Connect, Entra ID B2C) and audit logging.",
    "Run spikes on .NET Aspire for local development environments.",
]

REQS = [
    "Significant commercial experience with C# and .NET (ideally .NET 6 or later).",
    "Strong ASP.NET Core Web API experience, including versioning and resilience patterns (Polly).",
    "Hands-on Azure: App Service or AKS, Functions, Service Bus, Key Vault.",
    "Solid SQL Server skills and experience with EF Core or Dapper.",
    "Experience with messaging and event-driven systems (Service Bus, RabbitMQ or Kafka).",
    "Comfortable with Docker and CI/CD pipelines (Azure DevOps or GitHub Actions).",
    "Test-first mindset and experience with xUnit/NUnit and mocking frameworks.",
    "Experience working in regulated environments (FCA, NHS DSPT or similar) is desirable.",
    "Blazor or React experience is a nice to have but not essential.",
    "Excellent written communication for a remote-first, async team.",
    "SC clearance or eligibility for it (sole UK national for 5+ years).",
    "Previous WinForms/WPF experience highly desirable for the legacy estate.",
]

ABOUT = [
    "We are a {size}-person {domain} business that has grown {growth}% year on year since {year}.",
    "Our engineering team of {eng} works in small, autonomous squads with a product manager and a designer each.",
    "We ship to production multiple times a day and treat operability as a feature.",
    "We have a genuine remote-first culture with optional meet-ups in {city} once a quarter.",
    "Our tech radar is public and we contribute back to open source where we can.",
    "We were named in the {award} list two years running.",
    "Budgets are healthy and this contract is part of a funded two-year programme.",
    "The platform handles peak loads around {peak} and must stay available during trading hours.",
]

BENEFITS = [
    "Day rate paid weekly via an FCA-regulated umbrella or your own limited company.",
    "Initial {months}-month contract with strong likelihood of extension.",
    "Equipment provided: MacBook Pro or ThinkPad of your choice.",
    "Core hours 10:00-15:00 UK time, otherwise flexible.",
    "No travel expected; on-boarding is fully remote.",
    "One day per month in the {city} office for planning (travel expenses covered).",
    "Start date: ASAP, interviews this week (two stages: technical conversation + pairing exercise).",
]

CLOSING = [
    "We welcome applications from everyone and are committed to building diverse teams. If you need any "
    "adjustments during the process, tell us and we'll make them.",
    "Please note: we can only consider applicants who have the right to work in the UK. We are unable to offer "
    "visa sponsorship for this role.",
    "By applying you agree to our recruitment privacy notice, which explains how we process your personal data "
    "for the purposes of this vacancy and keep it for up to 12 months.",
]


def fill(rng: random.Random, s: str) -> str:
    return s.format(n=rng.choice([2, 5, 12, 40]), partner=rng.choice(["Sage", "Salesforce", "SAP", "NHS Spine"]),
                    size=rng.choice([80, 140, 300, 650]), domain=rng.choice(["fintech", "logistics", "health"]),
                    growth=rng.choice([20, 35, 60]), year=rng.choice([2019, 2020, 2021]),
                    eng=rng.choice([12, 25, 40, 70]), city=rng.choice(["Bristol", "Manchester", "Leeds", "London"]),
                    award=rng.choice(["Sunday Times 100 Best", "Tech Nation Future Fifty", "FT 1000"]),
                    peak=rng.choice(["3,000 requests/s", "9,000 orders/min", "1.2M messages/hour"]),
                    months=rng.choice([3, 6, 9]))


def job(rng: random.Random, job_id: int, company: tuple[str, str, str], title: str) -> dict:
    rate_lo = rng.choice([425, 450, 500, 525, 550, 575, 600, 625, 650])
    rate_hi = rate_lo + rng.choice([50, 75, 100, 125])
    return {
        "jobId": str(job_id), "title": title, "company": company[0], "domain": company[1],
        "agency": company[2], "rate": f"£{rate_lo}-£{rate_hi}/day", "rate_lo": rate_lo, "rate_hi": rate_hi,
        "ir35": rng.choice(["Outside IR35", "Outside IR35", "Inside IR35", "IR35 determination pending"]),
        "workplace": rng.choice(["Remote"] * 6 + ["Hybrid (Bristol, 1 day/week)", "Hybrid (London, 3 days/week)",
                                                  "On-site (Reading)"]),
        "months": rng.choice([3, 6, 6, 9, 12]), "posted": rng.choice(["5 hours ago", "14 hours ago", "1 day ago"]),
        "applicants": rng.randint(8, 190),
    }


def job_detail_text(rng: random.Random, j: dict) -> str:
    """A LinkedIn job detail page as the linkedin_job_detail tool returns it (~10k chars)."""
    resp = rng.sample(RESP, 9)
    reqs = rng.sample(REQS, 8)
    about = rng.sample(ABOUT, 6)
    ben = rng.sample(BENEFITS, 5)
    body = [
        f"Title: {j['title']}", f"Company: {j['company']}", f"Job ID: {j['jobId']}",
        f"URL: https://www.linkedin.com/jobs/view/{j['jobId']}/",
        f"Location: United Kingdom", f"Workplace type: {j['workplace']}", "Employment type: Contract",
        f"Rate: {j['rate']} ({j['ir35']})", f"Duration: {j['months']} months", f"Posted: {j['posted']}",
        f"Applicants: {j['applicants']}",
        f"Posted by: {'the hiring company' if j['agency'] == 'direct' else j['agency'] + ' (recruitment agency)'}",
        "", "About the job", "",
        f"{j['company']} is looking for a {j['title']} to join us on an initial {j['months']}-month contract. "
        + fill(rng, about[0]) + " " + fill(rng, about[1]),
        "", "The role", "",
    ]
    body += [f"- {fill(rng, r)}" for r in resp]
    body += ["", "What you'll bring", ""] + [f"- {r}" for r in reqs]
    body += ["", "About us", "", " ".join(fill(rng, a) for a in about[2:]), "", "The package", ""]
    body += [f"- {fill(rng, b)}" for b in ben]
    body += ["", "Our stack", "",
             ", ".join(rng.sample(["C# 12", ".NET 8", ".NET 6", ".NET Framework 4.8", "ASP.NET Core", "EF Core 8",
                                   "Dapper", "SQL Server 2022", "Azure SQL", "Cosmos DB", "Azure Service Bus",
                                   "Azure Functions", "AKS", "Bicep", "Terraform", "GitHub Actions", "Azure DevOps",
                                   "Blazor", "React", "TypeScript", "WPF", "RabbitMQ", "Redis", "OpenTelemetry",
                                   "Grafana", "Seq", "xUnit", "Playwright", "Docker"], 14)),
             "", "A day in the team", ""]
    day = []
    for _ in range(6):
        day.append(fill(rng, rng.choice(RESP)).replace("Design, build", "Most days you'll design and build")
                   .replace("- ", ""))
    body.append(" ".join(day))
    body += ["", "Interview process", "",
             "1. 30-minute call with the engineering manager about your experience and what you're looking for.",
             "2. 90-minute technical session: a short system design conversation followed by a pairing exercise on a "
             "real (sanitised) part of our codebase. No leetcode.",
             "3. Informal chat with two engineers from the team you'd join.",
             "We aim to complete the whole process within 7 working days and give written feedback either way.",
             "", "Skills", "",
             " · ".join(rng.sample(["C#", ".NET", "ASP.NET Core", "Microsoft Azure", "SQL", "Entity Framework",
                                    "Microservices", "Event-Driven Architecture", "Domain-Driven Design",
                                    "Continuous Integration", "Agile Methodologies", "REST APIs", "Docker",
                                    "Kubernetes", "Unit Testing"], 10)),
             "", "Hiring team", "",
             f"{rng.choice(['Priya', 'James', 'Sofia', 'Owen', 'Hannah', 'Kwame'])} "
             f"{rng.choice(['Patel', 'Morgan', 'Okafor', 'Reid', 'Walsh', 'Nowak'])} · "
             f"{rng.choice(['Engineering Manager', 'Senior Recruiter', 'Head of Platform', 'Talent Partner'])}",
             "", "About the company", "",
             f"{j['company']} · {j['domain'].title()} · {rng.choice(['51-200', '201-500', '501-1,000', '1,001-5,000'])} "
             f"employees · {rng.randint(2, 40)}k followers on LinkedIn", "",
             " ".join(fill(rng, a) for a in rng.sample(ABOUT, 4)), "", " ".join(CLOSING)]
    text = "\n".join(body)
    while len(text) < 9200:
        text += "\n\n" + fill(rng, rng.choice(ABOUT)) + " " + fill(rng, rng.choice(RESP)) + " " + rng.choice(CLOSING)
    return text


def jobserve_email(rng: random.Random, msg_id: str, jobs: list[dict], date: str) -> str:
    """A JobServe alert email body as the gmail_read tool returns it (~10k chars)."""
    head = [f"Message-ID: <{msg_id}@mail.jobserve.com>", "From: JobServe Alerts <alerts@jobserve.com>",
            "To: tom.haverford.dev@gmail.com", f"Date: {date}",
            f"Subject: {len(jobs)} new jobs matching \".NET contract remote\"", "Labels: INBOX, CATEGORY_UPDATES", "",
            "Hello Tom,", "", f"We found {len(jobs)} new jobs matching your saved search \".NET contract remote\".", ""]
    for j in jobs:
        ref = f"JS{rng.randint(10000000, 99999999)}/{rng.choice(['NFR', 'HAY', 'LOR', 'SAN', 'CFJ'])}"
        head += [
            "------------------------------------------------------------",
            f"{j['title']}", f"Location: {'Remote (UK)' if j['workplace'] == 'Remote' else j['workplace']}",
            f"Rate: {j['rate']} {j['ir35']}", f"Duration: {j['months']} months",
            f"Posted by: {j['agency'] if j['agency'] != 'direct' else j['company']}", f"Ref: {ref}",
            f"Client: {j['company'] if rng.random() < 0.6 else 'Confidential (' + j['domain'] + ')'}",
            "",
            " ".join(fill(rng, r) for r in rng.sample(RESP, 4)),
            "Essential: " + " ".join(rng.sample(REQS, 3)),
            f"View and apply: https://www.jobserve.com/gb/en/search-jobs-in-United-Kingdom/{ref.split('/')[0]}",
            "",
        ]
    while len("\n".join(head)) < 9400:
        head.insert(-1, "Also recommended for you: " + fill(rng, rng.choice(RESP)) + " " + rng.choice(REQS))
    head += ["------------------------------------------------------------", "",
             "You are receiving this email because you created a job alert on JobServe. To change how often you "
             "receive alerts, or to stop receiving them, visit https://www.jobserve.com/gb/en/Candidate/Alerts.aspx",
             "", "JobServe Ltd, Tower Business Centre, Colchester, Essex, CO1 1AA. Registered in England No. 2938766.",
             "Please do not reply to this email; this mailbox is not monitored."]
    return "\n".join(head)


def score(j: dict, rng: random.Random) -> tuple[float, dict]:
    stack = rng.choice([6, 7, 8, 8, 9])
    remote = 10 if j["workplace"] == "Remote" else 6
    rate = 10 if j["rate_hi"] >= 675 else 8 if j["rate_hi"] >= 600 else 6
    growth = rng.choice([5, 6, 7, 8, 9])
    total = round(0.30 * stack + 0.20 * remote + 0.25 * rate + 0.25 * growth, 1)
    return total, {"stack": stack, "remote": remote, "rate": rate, "growth": growth}


def reject_reason(j: dict, strict_ir35: bool = False) -> str | None:
    """Why a role fails the prompt's hard filters; `strict_ir35` is the first round's mistake (outside IR35 only)."""
    if strict_ir35 and j["ir35"] == "Inside IR35":
        return "inside IR35"
    if j["domain"] in ("gambling", "adtech", "defence"):
        return f"{j['domain']} (excluded sector)"
    if j["rate_hi"] < 500:
        return f"rate {j['rate']} below £500/day"
    if j["workplace"].startswith("Hybrid (London") or j["workplace"].startswith("On-site"):
        return f"{j['workplace']} (not remote / not Bristol-Bath)"
    if j["ir35"] == "Inside IR35" and j["rate_hi"] < 600:
        return f"inside IR35 at {j['rate']} (needs £600+)"
    return None


def build() -> PiSession:
    s = PiSession(seed=20260217, start="2026-02-17T07:58:12.204Z", cwd="/home/tom/jobsearch", ratio=1.29)
    rng = s.rng
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("low")
    s.user("Execute the job search prompt from search-prompt.txt", pause=(1, 3))
    s.step("read", {"path": "search-prompt.txt"}, SEARCH_PROMPT,
           thinking="The user wants me to run the daily search described in search-prompt.txt. Read it first.")
    s.say("Criteria loaded: senior .NET contract roles, fully remote UK (or Bristol/Bath hybrid ≤ 1 day/week), "
          "£500-700/day, 3+ months, outside IR35 preferred (inside only at £600+), excluding gambling, adtech "
          "and defence. Scoring: stack 30%, remote 20%, rate 25%, growth 25%. Starting with the three LinkedIn "
          "searches.")
    job_id = 4112009734
    all_jobs: list[dict] = []
    details_read: list[dict] = []

    def linkedin_round(queries: list[str], n_each: int, detail_count: int, thinking: str,
                       strict: bool = False, planted: dict | None = None) -> None:
        nonlocal job_id
        found: list[dict] = []
        calls = []
        for q in queries:
            results = []
            for k in range(n_each):
                job_id += rng.randint(3000, 90000)
                j = job(rng, job_id, rng.choice(COMPANIES), rng.choice(TITLES))
                if planted is not None and len(found) == 1:
                    j.update(planted, jobId=str(job_id))
                found.append(j)
                results.append({"jobId": j["jobId"], "title": j["title"], "company": j["company"],
                                "location": "United Kingdom", "workplaceType": j["workplace"],
                                "listedAt": j["posted"], "salary": j["rate"],
                                "url": f"https://www.linkedin.com/jobs/view/{j['jobId']}/"})
            calls.append(("linkedin_search", {"keywords": q, "location": "United Kingdom", "datePosted": "past-24h",
                                              "jobType": "contract"},
                          json.dumps({"query": q, "total": len(results) + rng.randint(0, 40), "results": results},
                                     indent=2), False))
        s.steps(calls, thinking=thinking)
        all_jobs.extend(found)
        candidates = [j for j in found if reject_reason(j, strict) is None][:detail_count]
        skipped = [j for j in found if reject_reason(j, strict) is not None]
        s.say(f"{len(found)} results. {len(skipped)} fail the hard filters on the listing alone ("
              + "; ".join(f"{j['company']}: {reject_reason(j, strict)}" for j in skipped[:5])
              + ("…" if len(skipped) > 5 else "") + f"). Opening the {len(candidates)} plausible ones.")
        for j in candidates:
            s.step("linkedin_job_detail", {"jobId": j["jobId"]}, job_detail_text(rng, j), took=(1, 4))
            details_read.append(j)
        notes = "\n".join(
            f"- {j['company']} — {j['title']}: {j['rate']}, {j['ir35']}, {j['workplace']}, {j['months']} months"
            for j in candidates)
        s.say("Notes from the detail pages:\n" + notes)

    copperline = {"title": "Senior .NET Developer", "company": "Copperline Payments", "domain": "payments",
                  "agency": "Harvey Nash", "rate": "£625-£700/day", "rate_lo": 625, "rate_hi": 700,
                  "ir35": "Inside IR35", "workplace": "Remote", "months": 6}
    linkedin_round([".NET contract remote UK", "senior C# contract", "ASP.NET Core contract"], 5, 7,
                   "Run the three LinkedIn queries from the prompt, last 24h, contract only. Outside IR35 is "
                   "what the prompt prefers, so I'll drop inside-IR35 listings at this stage.",
                   strict=True, planted=copperline)

    # gmail round 1
    msgs = []
    for i in range(7):
        msgs.append({"id": f"18d{rng.getrandbits(40):010x}", "from": "JobServe Alerts <alerts@jobserve.com>",
                     "subject": f"{rng.randint(3, 9)} new jobs matching \".NET contract remote\"",
                     "date": f"Mon, {16 - i // 4} Feb 2026 {6 + i:02d}:{rng.randint(0, 59):02d}:00 +0000",
                     "snippet": "Hello Tom, We found new jobs matching your saved search..."})
    s.step("gmail_search", {"query": "from:alerts@jobserve.com newer_than:2d", "maxResults": 20},
           json.dumps({"messages": msgs, "resultSizeEstimate": len(msgs)}, indent=2),
           text="Now the JobServe alerts from the last two days.")
    alert_jobs: list[dict] = []
    for m in msgs[:4]:
        jobs = []
        for _ in range(7):
            job_id += rng.randint(3000, 90000)
            jobs.append(job(rng, job_id, rng.choice(COMPANIES), rng.choice(TITLES)))
        all_jobs.extend(jobs)
        alert_jobs.extend(jobs)
        s.step("gmail_read", {"messageId": m["id"]}, jobserve_email(rng, m["id"], jobs, m["date"]), took=(0.5, 2))
    alert_pass = [j for j in alert_jobs if reject_reason(j, True) is None][:4]
    details_read.extend(alert_pass)
    s.say("The other three alerts are older and repeat roles from these four, so I'm not opening them. From the "
          f"alerts, {len(alert_pass)} roles pass the filters: "
          + "; ".join(f"{j['company']} ({j['rate']}, {j['ir35']})" for j in alert_pass)
          + ". Checking the recruiters label next.")
    rec = [{"id": f"18d{rng.getrandbits(40):010x}", "from": f"{n} <{e}>", "subject": sub, "date": d,
            "snippet": sn} for n, e, sub, d, sn in [
        ("Megan Hale", "megan.hale@lorien.co.uk", "Senior .NET contract - Riverbank BS - outside IR35",
         "Mon, 16 Feb 2026 16:41:09 +0000", "Hi Tom, hope you're well. I have a 6 month outside IR35..."),
        ("Dev Sharma", "dev@harnham.com", "Azure/.NET lead - energy trading - £675pd",
         "Tue, 17 Feb 2026 07:12:55 +0000", "Morning Tom, quick one - a client of ours in energy trading..."),
    ]]
    s.step("gmail_search", {"query": "label:recruiters newer_than:2d", "maxResults": 10},
           json.dumps({"messages": rec, "resultSizeEstimate": 2}, indent=2))
    for m in rec:
        body = (f"From: {m['from']}\nTo: tom.haverford.dev@gmail.com\nDate: {m['date']}\nSubject: {m['subject']}\n\n"
                + m["snippet"].replace("...", "") + " " +
                " ".join(fill(rng, r) for r in rng.sample(RESP, 6)) + "\n\n" +
                "\n".join(f"- {r}" for r in rng.sample(REQS, 6)) + "\n\n" +
                "Rate is " + rng.choice(["£600-650/day outside IR35", "£650-700/day outside IR35"]) +
                ", fully remote with a quarterly get-together. They want to interview this week. Let me know if "
                "you'd like me to put you forward and I'll send over the full spec.\n\nBest,\n"
                + m["from"].split(" <")[0] + "\n\n" + " ".join(CLOSING) + "\n\n" +
                "-- \nThis email and any attachments are confidential and intended solely for the addressee.")
        while len(body) < 9000:
            body += "\n\n> " + fill(rng, rng.choice(ABOUT)) + " " + fill(rng, rng.choice(RESP))
        s.step("gmail_read", {"messageId": m["id"]}, body)

    recruiter_jobs = [
        {"jobId": rec[0]["id"], "title": "Senior .NET Developer", "company": "Riverbank Building Society",
         "domain": "banking", "agency": "Lorien", "rate": "£600-£650/day", "rate_lo": 600, "rate_hi": 650,
         "ir35": "Outside IR35", "workplace": "Remote", "months": 6},
        {"jobId": rec[1]["id"], "title": "Azure/.NET Lead", "company": "Brightwater Energy", "domain": "energy trading",
         "agency": "Harnham", "rate": "£650-£700/day", "rate_lo": 650, "rate_hi": 700, "ir35": "Outside IR35",
         "workplace": "Remote", "months": 6},
    ]
    details_read.extend(recruiter_jobs)
    all_jobs.extend(recruiter_jobs)
    s.say("Two recruiter emails: Riverbank Building Society via Lorien (£600-650/day outside IR35, remote, 6 months) "
          "and an Azure/.NET lead role at Brightwater Energy via Harnham (£650-700/day outside IR35, remote). Both "
          "pass the filters. That's the first round done; shall I run more searches before scoring?")
    s.user("Good start. But inside-IR35 roles are allowed if the rate is £600 or more — the prompt says so. I think "
           "you skipped Copperline earlier. And search 'Azure .NET 8 contract' too.", pause=(300, 600))
    cop = next(j for j in all_jobs if j["company"] == "Copperline Payments" and j["ir35"] == "Inside IR35")
    s.step("linkedin_job_detail", {"jobId": cop["jobId"]},
           job_detail_text(rng, cop),
           thinking="Right: the prompt allows inside IR35 at £600/day or more, and I filtered all inside-IR35 roles "
                    "in round 1. Copperline Payments is £625-700 inside IR35, remote — it qualifies. Open it, then "
                    "re-check the other inside-IR35 listings from round 1 against the £600 rule.")
    details_read.append(cop)
    revisit = [j for j in all_jobs if j["ir35"] == "Inside IR35" and reject_reason(j) is None
               and j["company"] != "Copperline Payments" and j not in details_read][:2]
    for j in revisit:
        s.step("linkedin_job_detail", {"jobId": j["jobId"]}, job_detail_text(rng, j))
        details_read.append(j)
    s.say("Fixed: Copperline Payments (Senior .NET Developer, £625-700/day inside IR35, remote, 6 months) qualifies "
          "under the £600 inside-IR35 rule" + (f", and so do {len(revisit)} more inside-IR35 listings from round 1 "
                                               "that I had dropped" if revisit else "") + ". Now the extra search.")
    linkedin_round(["Azure .NET 8 contract"], 8, 6,
                   "Extra query from the user, with the corrected IR35 rule (inside allowed at £600+/day).")
    s.user("One more round: search for 'event driven .NET contract' and 'C# Service Bus contract', then score "
           "everything and write the report.", pause=(120, 300))
    linkedin_round(["event driven .NET contract", "C# Service Bus contract"], 5, 6,
                   "Final search round before scoring.")

    # scoring: this is where the rubric from the start is needed
    passing = [j for j in details_read if reject_reason(j) is None]
    scored = sorted(((score(j, rng), j) for j in passing), key=lambda x: -x[0][0])
    lines = []
    for (total, parts), j in scored:
        lines.append(f"- {j['company']} / {j['title']}: stack {parts['stack']}, remote {parts['remote']}, rate "
                     f"{parts['rate']}, growth {parts['growth']} → 0.30×{parts['stack']} + 0.20×{parts['remote']} + "
                     f"0.25×{parts['rate']} + 0.25×{parts['growth']} = {total}")
    s.say("Scoring every role that passed the hard filters with the rubric from search-prompt.txt (stack 30%, "
          "remote 20%, rate 25%, growth 25%):\n\n" + "\n".join(lines),
          thinking="Apply the weighted rubric: 0.30*stack + 0.20*remote + 0.25*rate + 0.25*growth. Remote 10 "
                   "for fully remote, 6 for Bristol/Bath hybrid 1 day. Rate 10 at the top of the band, 8 from "
                   "£600, 6 for £500-599. Exclusions (gambling, adtech, defence) were filtered before scoring.")
    rejected = [j for j in all_jobs if reject_reason(j) is not None]
    table = ["| # | Company | Title | Rate | IR35 | Remote | Score | Link |", "|---|---|---|---|---|---|---|---|"]
    for i, ((total, _), j) in enumerate(scored, 1):
        table.append(f"| {i} | {j['company']} | {j['title']} | {j['rate']} | {j['ir35']} | {j['workplace']} | "
                     f"{total} | https://www.linkedin.com/jobs/view/{j['jobId']}/ |")
    report = ("# Jobs — 2026-02-17\n\nSearch: search-prompt.txt (senior .NET contract, remote UK, £500-700/day).\n"
              "Sources: LinkedIn (6 queries, last 24h), JobServe alerts (4 of 7 emails read, rest duplicates), "
              "recruiters label (2 emails).\n\n## Scored roles\n\n" + "\n".join(table) +
              "\n\n## Top 3\n\n" +
              "\n".join(f"{i}. **{j['company']}** ({j['title']}, {j['rate']}): ask about "
                        f"{rng.choice(['the IR35 status determination statement', 'team size and who owns on-call', 'whether .NET 8 migration is funded'])}."
                        for i, (_, j) in enumerate(scored[:3], 1)) +
              "\n\n## Rejected\n\n" + "\n".join(f"- {j['company']} — {j['title']}: {reject_reason(j)}"
                                                  for j in rejected) +
              "\n\n## Passed the filters but not opened (reposts or over today's detail budget)\n\n" +
              "\n".join(f"- {j['company']} — {j['title']} ({j['rate']}, {j['ir35']})" for j in all_jobs
                        if reject_reason(j) is None and j not in details_read) +
              "\n\nNothing was applied to and no emails were answered.\n")
    s.step("write", {"path": "todays-jobs-2026-02-17.md", "content": report},
           f"Successfully wrote {len(report)} bytes to todays-jobs-2026-02-17.md")
    top = scored[0]
    s.say(f"Report written to `todays-jobs-2026-02-17.md`: {len(scored)} scored roles, {len(rejected)} rejected "
          f"with reasons. Top pick: **{top[1]['company']}** — {top[1]['title']} ({top[1]['rate']}, "
          f"{top[1]['ir35']}), weighted score {top[0][0]}. Nothing applied to, no emails answered.")
    return s
