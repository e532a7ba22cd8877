// The whole tuning loop on the CPU, with the fake worker standing in for the GPU: fault and hang
// recovery, and a run killed with SIGKILL that resumes without redoing finished trials.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <thread>

#include "db/tuning_db.hpp"
#include "gpu/timing.hpp"
#include "support/run_tool.hpp"

using namespace cl2;
using namespace cl2_test;

namespace {

std::string tune_args(const ScratchDir& dir, const std::string& shapes, const std::string& family) {
  return "tune --fake-gpu --shapes " + dir.write("shapes.json", shapes) + " --db " + dir.file("t.sqlite") +
         test_family_args(family) + " --max-candidates 0";
}

std::vector<TrialRecord> all_trials(const std::string& db_path, const Problem& problem) {
  auto db = TuningDb::open(db_path, DbMode::ReadOnly);
  std::vector<TrialRecord> trials;
  for (const auto& [id, device] : db->devices()) {
    auto some = db->trials(id, problem);
    trials.insert(trials.end(), some.begin(), some.end());
  }
  return trials;
}

int count_status(const std::vector<TrialRecord>& trials, TrialStatus status) {
  int n = 0;
  for (const auto& t : trials) n += t.status == status;
  return n;
}

const Problem kSmall{{64, 64, 64}, Layout::TN, Accum::F32};

}  // namespace

// Side by side, the crash takes the worker with both candidates of its request: each is tried
// again alone, so the crash is recorded against the one that caused it.
TEST(TuneFakeGpu, CrashingVariantIsRecordedAndTheRunFinishes) {
  for (const std::string side_by_side : {"1", "2"}) {
    SCOPED_TRACE("--side-by-side " + side_by_side);
    ScratchDir dir;
    const auto r = run_tool(tune_args(dir, "[[64, 64, 64]]", "naive_fault") + " --side-by-side " + side_by_side, dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto trials = all_trials(dir.file("t.sqlite"), kSmall);
    ASSERT_EQ(trials.size(), 2u);
    EXPECT_EQ(count_status(trials, TrialStatus::Fault), 1);
    EXPECT_EQ(count_status(trials, TrialStatus::Ok), 1);
    for (const auto& t : trials)
      if (t.status == TrialStatus::Fault) {
        EXPECT_NE(t.reason.find("illegal memory access"), std::string::npos) << t.reason;
      }
    auto db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly);
    EXPECT_TRUE(db->winner(db->devices().front().first, kSmall).has_value());
  }
}

TEST(TuneFakeGpu, HungVariantIsKilledByTheWatchdog) {
  ScratchDir dir;
  const auto r = run_tool(tune_args(dir, "[[64, 64, 64]]", "naive_hang") + " --watchdog-seconds 2", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto trials = all_trials(dir.file("t.sqlite"), kSmall);
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(count_status(trials, TrialStatus::Timeout), 1);
  EXPECT_EQ(count_status(trials, TrialStatus::Fault), 1);
  EXPECT_EQ(count_status(trials, TrialStatus::Ok), 1);
}

TEST(TuneFakeGpu, KilledRunResumesWithoutRedoingFinishedTrials) {
  ScratchDir dir;
  const std::string shapes = "[[64, 64, 64], [128, 64, 64]]";  // 2 shapes x 6 variants
  const std::string args = tune_args(dir, shapes, "naive_many");
  const std::string pid_file = dir.file("pid");
  const std::string background = "CL2_FAKE_TRIAL_DELAY_MS=300 CUDA_L2_TUNE_CACHE=" + dir.file("cache") + " " +
                                 tool_binary() + " " + args + " >" + dir.file("first.log") +
                                 " 2>&1 & echo $! >" + pid_file;
  ASSERT_EQ(std::system(background.c_str()), 0);
  const pid_t pid = std::stoi(read_all(pid_file));
  // Kill it (SIGKILL: no cleanup) once a few trials are in the database.
  std::size_t before = 0;
  for (int i = 0; i < 600 && before < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (std::filesystem::exists(dir.file("t.sqlite"))) {
      try {
        before = all_trials(dir.file("t.sqlite"), kSmall).size();
      } catch (const std::exception&) {
        before = 0;  // the schema may not be there yet
      }
    }
  }
  ASSERT_GE(before, 3u) << read_all(dir.file("first.log"));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the orphaned worker sees EOF
  const auto first_trials = all_trials(dir.file("t.sqlite"), kSmall);
  const Problem second{{128, 64, 64}, Layout::TN, Accum::F32};
  const std::size_t finished = first_trials.size() + all_trials(dir.file("t.sqlite"), second).size();
  ASSERT_LT(finished, 12u) << "the run finished before it was killed; slow it down";

  const auto r = run_tool(args, dir, "CL2_FAKE_TRIAL_LOG=" + dir.file("trials.log"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(std::size_t(line_count(read_all(dir.file("trials.log")))), 12 - finished)
      << "the resumed run must run exactly the trials the killed one did not finish";
  const auto after = all_trials(dir.file("t.sqlite"), kSmall);
  EXPECT_EQ(after.size(), 6u);
  EXPECT_EQ(all_trials(dir.file("t.sqlite"), second).size(), 6u);
  for (const auto& old : first_trials) {
    bool kept = false;
    for (const auto& t : after) kept = kept || (t.id == old.id && t.created_at == old.created_at);
    EXPECT_TRUE(kept) << "trial " << old.id << " was redone or lost";
  }
  // A third run finds everything done and runs nothing.
  const auto again = run_tool(args, dir, "CL2_FAKE_TRIAL_LOG=" + dir.file("third.log"));
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("third.log")));
}

TEST(TuneFakeGpu, ExportShowsTheWinnersOfTheRun) {
  ScratchDir dir;
  ASSERT_EQ(run_tool(tune_args(dir, "[[64, 64, 64]]", "naive_fault"), dir).status, 0);
  const auto r = run_tool("export --format json --db " + dir.file("t.sqlite"), dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Fake GPU"), std::string::npos);
  EXPECT_NE(r.out.find("naive_fault"), std::string::npos);
  const auto show = run_tool("show 64 64 64 --db " + dir.file("t.sqlite"), dir);
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find("fault"), std::string::npos);
}

// tune --l2 sets the policy of the shapes that do not give one: a shape tuned warm and rotated in
// one run has two winners, which show and export tell apart.
TEST(TuneFakeGpu, OneShapeTunedUnderTwoL2PoliciesHasTwoWinners) {
  ScratchDir dir;
  const std::string db = dir.file("t.sqlite");
  const std::string shapes = R"([[64, 64, 64], {"m": 64, "n": 64, "k": 64, "l2": "warm"}])";
  const auto r = run_tool(tune_args(dir, shapes, "naive_fault") + " --l2 rotate", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("64x64x64 tn f32 l2 rotate"), std::string::npos) << r.err;
  const auto rows = TuningDb::open(db, DbMode::ReadOnly)->winner_rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].winner.problem, kSmall);
  EXPECT_EQ(rows[1].winner.problem, (Problem{{64, 64, 64}, Layout::TN, Accum::F32, L2Policy::Rotate}));

  const auto show = run_tool("show 64 64 64 --l2 rotate --db " + db, dir);
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find("64x64x64 tn f32 l2 rotate on Fake GPU"), std::string::npos) << show.out;
  const auto csv = run_tool("export --format csv --db " + db, dir);
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_NE(csv.out.find(",l2\n"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",rotate\n"), std::string::npos) << csv.out;
}

// The model ranks three variants that spill ahead of three that compile clean: with three slots,
// the spilling ones are recorded as rejected and the clean ones take their slots and are timed.
TEST(TuneFakeGpu, SlotsOfVariantsThatSpillGoToTheNextCandidates) {
  ScratchDir dir;
  const auto r = run_tool("tune --fake-gpu --shapes " + dir.write("shapes.json", "[[64, 64, 64]]") + " --db " +
                              dir.file("t.sqlite") + test_family_args("naive_spill") + " --max-candidates 3",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto trials = all_trials(dir.file("t.sqlite"), kSmall);
  EXPECT_EQ(count_status(trials, TrialStatus::Ok), 3) << r.err;
  EXPECT_EQ(count_status(trials, TrialStatus::Rejected), 3) << r.err;
  for (const auto& t : trials)
    if (t.status == TrialStatus::Rejected) {
      EXPECT_NE(t.reason.find("spills"), std::string::npos) << t.reason;
    }
  EXPECT_NE(r.err.find("3 slots of rejected variants went to the next candidates"), std::string::npos) << r.err;
}

// With --seeds 1 and one slot, a shape next to a tuned one times that shape's winner, not the
// model's cheapest candidate.
TEST(TuneFakeGpu, SeedsTryTheWinnerOfTheNearestTunedShapeFirst) {
  ScratchDir dir;
  const std::string db_args = " --db " + dir.file("t.sqlite") + test_family_args("naive_many");
  ASSERT_EQ(run_tool("tune --fake-gpu --shapes " + dir.write("a.json", "[[64, 64, 64]]") + db_args +
                         " --max-candidates 0", dir).status, 0);
  auto db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly);
  const auto device = db->devices().front().first;
  const auto winner = db->winner(device, kSmall);
  ASSERT_TRUE(winner.has_value());
  const std::string seed = db->kernel(winner->kernel_id)->config_json;
  ASSERT_EQ(seed.find("\"VARIANT\":1}"), std::string::npos) << "the test needs a winner the model does not rank first";
  db.reset();
  const auto r = run_tool("tune --fake-gpu --shapes " + dir.write("b.json", "[[64, 64, 128]]") + db_args +
                              " --max-candidates 1 --seeds 1", dir);
  ASSERT_EQ(r.status, 0) << r.err;
  db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly);
  const auto trials = db->trials(device, Problem{{64, 64, 128}, Layout::TN, Accum::F32});
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(db->kernel(trials.front().kernel_id)->config_json, seed);
}

// Three variants: 20.5 us that screens lucky at 19.7, 20.0 and 21.0. The lucky one screens best;
// with finalists, the 20.0 (within 4% of it) is timed again side by side and wins; 21.0 is not a
// finalist. With --finalists 1 the best screening time wins, as before.
TEST(TuneFakeGpu, FinalistsSettleCloseScreeningTimesSideBySide) {
  for (const int finalists : {3, 1}) {
    ScratchDir dir;
    const auto r = run_tool(tune_args(dir, "[[64, 64, 64]]", "naive_lucky") +
                                " --finalists " + std::to_string(finalists), dir);
    ASSERT_EQ(r.status, 0) << r.err;
    auto db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly);
    const auto winner = db->winner(db->devices().front().first, kSmall);
    ASSERT_TRUE(winner.has_value());
    const std::string config = db->kernel(winner->kernel_id)->config_json;
    if (finalists == 3) {
      EXPECT_NE(config.find("\"US10\":200"), std::string::npos) << config;
      EXPECT_DOUBLE_EQ(winner->time_us, 20.0);
    } else {
      EXPECT_NE(config.find("\"US10\":205"), std::string::npos) << config;
      EXPECT_DOUBLE_EQ(winner->time_us, 20.5);  // the final round's time, not the lucky screening
    }
    EXPECT_EQ(winner->candidates_timed, 3);
  }
}

// naive_final_check's fastest variant (20.0 us) passes its trial and fails the final round's
// checks: its trial says so and the next (20.5 us) wins. With one finalist, the round that fails
// is followed by one for the next best rather than leaving the shape without a winner.
TEST(TuneFakeGpu, AFinalistThatFailsTheFinalRoundsChecksCannotWin) {
  for (const int finalists : {3, 1}) {
    SCOPED_TRACE("--finalists " + std::to_string(finalists));
    ScratchDir dir;
    const auto r = run_tool(tune_args(dir, "[[64, 64, 64]]", "naive_final_check") + " --finalists " +
                                std::to_string(finalists), dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE((r.out + r.err).find("in the final round: not deterministic"), std::string::npos) << r.out << r.err;
    auto db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly);
    const auto winner = db->winner(db->devices().front().first, kSmall);
    ASSERT_TRUE(winner.has_value());
    EXPECT_NE(db->kernel(winner->kernel_id)->config_json.find("\"US10\":205"), std::string::npos);
    EXPECT_DOUBLE_EQ(winner->time_us, 20.5);
    EXPECT_EQ(winner->candidates_timed, 2);
    for (const auto& t : all_trials(dir.file("t.sqlite"), kSmall)) {
      if (db->kernel(t.kernel_id)->config_json.find("\"FAULT\":8") == std::string::npos) continue;
      EXPECT_EQ(t.status, TrialStatus::VerifyFailed);
      EXPECT_NE(t.reason.find("in the final round"), std::string::npos) << t.reason;
    }
  }
}

// naive_race's model ranks its 8 variants slowest first, and its 27.0 us variant races at 18.9.
// With 2 slots the model strategy times the two slowest; a race times all 8 briefly, screens the
// 2 that raced best (the lucky one among them, which screening unmasks) and finds the fastest.
// Side by side (three candidates a request) the same candidates are raced and screened.
TEST(TuneFakeGpu, RaceTimesManyBrieflyAndScreensOnlyItsLeaders) {
  const std::map<std::string, double> winner_us = {{"model", 26.0}, {"race", 20.0}};
  for (const std::string side_by_side : {"1", "3"}) {
    for (const auto& [strategy, expected_us] : winner_us) {
      SCOPED_TRACE(strategy + ", --side-by-side " + side_by_side);
      ScratchDir dir;
      const auto r = run_tool("tune --fake-gpu --shapes " + dir.write("shapes.json", "[[64, 64, 64]]") + " --db " +
                                  dir.file("t.sqlite") + test_family_args("naive_race") +
                                  " --max-candidates 2 --strategy " + strategy + " --side-by-side " + side_by_side,
                              dir, "CL2_FAKE_TRIAL_LOG=" + dir.file("trials.log"));
      ASSERT_EQ(r.status, 0) << r.err;
      const std::string log = read_all(dir.file("trials.log"));
      const auto requests = [&](const std::string& rule) {
        std::size_t n = 0;
        for (std::size_t at = log.find(rule); at != std::string::npos; at = log.find(rule, at + 1)) ++n;
        return n;
      };
      // Raced briefly and checked briefly; screened and checked in full.
      const std::string raced = " brief_check=1 max_samples=" + std::to_string(race_stop_rule().max_samples) + "\n";
      const std::string screened =
          " brief_check=0 max_samples=" + std::to_string(screening_stop_rule().max_samples) + "\n";
      const auto trials = all_trials(dir.file("t.sqlite"), kSmall);
      auto db = TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly);
      const auto winner = db->winner(db->devices().front().first, kSmall);
      ASSERT_TRUE(winner.has_value());
      EXPECT_DOUBLE_EQ(winner->time_us, expected_us);
      if (strategy == "model") {
        EXPECT_EQ(trials.size(), 2u);
        EXPECT_EQ(requests(raced), 0u);
        EXPECT_EQ(requests(screened), 2u);
        continue;
      }
      EXPECT_EQ(trials.size(), 8u) << "one row per candidate, the screened ones updated in place";
      EXPECT_EQ(requests(raced), 8u);
      EXPECT_EQ(requests(screened), 2u);
      for (const auto& t : trials) {
        const std::string config = db->kernel(t.kernel_id)->config_json;
        if (config.find("\"FAULT\":7") != std::string::npos) {
          EXPECT_DOUBLE_EQ(t.time_us, 27.0) << "the lucky racer keeps its screening time";
        }
      }
    }
  }
}

// naive_race's model has its variants exactly backwards: show --model says so (rank correlation
// -1, and its first choice, 27.0 us, 1.35x the fastest, 20.0).
TEST(TuneFakeGpu, ShowModelRatesTheCostModelAgainstTheMeasuredTimes) {
  ScratchDir dir;
  ASSERT_EQ(run_tool(tune_args(dir, "[[64, 64, 64], [128, 64, 64]]", "naive_race"), dir).status, 0);
  const auto r = run_tool("show --model --db " + dir.file("t.sqlite") + " --space-file " +
                              source_path("tests/data/spaces/naive_race.json"),
                          dir);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("naive_race"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-1.00"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1.350x"), std::string::npos) << r.out;
  const auto unknown = run_tool("show --model --db " + dir.file("t.sqlite"), dir);
  ASSERT_EQ(unknown.status, 0) << unknown.err;
  EXPECT_NE(unknown.out.find("No verified trials of the known families"), std::string::npos) << unknown.out;
}

// With seeds, a run tunes an even sample of its shapes first and seeds the rest with their winners.
// naive_shape_model's model is right at M = 64 and backwards above: with 2 slots the model alone
// finds 26.0 us above M = 64; seeded, every shape gets the 20.0 us winner of its M = 64 neighbour.
TEST(TuneFakeGpu, SeedsComeFromShapesTunedEarlierInTheSameRun) {
  ScratchDir dir;
  // Every 8th shape (the first batch) has M = 64; the others M = 65 to 78.
  std::string shapes = "[";
  for (int i = 0; i < 16; ++i) shapes += fmt::format("{}[{}, 64, {}]", i ? ", " : "", i % 8 ? 64 + i : 64, 64 * (1 + i / 8));
  shapes += "]";
  for (const std::string strategy : {"model", "seeded"}) {
    SCOPED_TRACE(strategy);
    const std::string db = dir.file(strategy + ".sqlite");
    const auto r = run_tool("tune --fake-gpu --max-candidates 2 --strategy " + strategy + " --shapes " +
                                dir.write("shapes.json", shapes) + " --db " + db + test_family_args("naive_shape_model"),
                            dir);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = TuningDb::open(db, DbMode::ReadOnly)->winner_rows();
    ASSERT_EQ(rows.size(), 16u);
    for (const auto& row : rows)
      EXPECT_DOUBLE_EQ(row.winner.time_us, strategy == "seeded" || row.winner.problem.shape.m == 64 ? 20.0 : 26.0)
          << row.winner.problem.text();
  }
}

TEST(TuneFakeGpu, TheRunEndsSayingWhereItsTimeWent) {
  ScratchDir dir;
  // Each fake trial takes 30 ms: screening's 6 candidates must show at least that each.
  const auto r = run_tool(tune_args(dir, "[[64, 64, 64]]", "naive_many"), dir, "CL2_FAKE_TRIAL_DELAY_MS=30");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto at = r.err.find("time by stage: compiling ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
  const auto screening = line.find("screening ");
  ASSERT_NE(screening, std::string::npos) << line;
  const auto candidates = line.find(", 6 candidates at ", screening);
  ASSERT_NE(candidates, std::string::npos) << line;
  EXPECT_GE(std::stoi(line.substr(candidates + std::string(", 6 candidates at ").size())), 30) << line;
  for (const char* stage : {"setup", "libraries", "final rounds", "the rest"})
    EXPECT_NE(line.find(stage), std::string::npos) << stage << " in " << line;
}

TEST(TuneFakeGpu, EachBatchCompilesWhileTheOneBeforeItIsTuned) {
  ScratchDir dir;
  // 16 shapes without seeds: a first batch of 1 (a 32nd), then 5 of 3. Each shape's 6 fake trials
  // take 40 ms each, so batch 2 (shapes 2-4) tunes for 0.7 s; batch 3's kernels (the same 6 as
  // every batch's, from the cache) are planned within it, before shape 4 starts, where without the
  // overlap they would come after.
  std::string shapes = "[";
  for (int i = 0; i < 16; ++i) shapes += fmt::format("{}[{}, 64, 64]", i ? ", " : "", 64 + 8 * i);
  shapes += "]";
  const auto r = run_tool(tune_args(dir, shapes, "naive_many"), dir, "CL2_FAKE_TRIAL_DELAY_MS=40");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("batch 1/6 (shapes 1-1): planned 1 shapes"), std::string::npos) << r.err;
  const auto third = r.err.find("batch 3/6 (shapes 5-7, compiled while the GPU tunes the batch before): compiled 6");
  const auto fourth = r.err.find("[4/16] ");
  ASSERT_NE(third, std::string::npos) << r.err;
  ASSERT_NE(fourth, std::string::npos) << r.err;
  EXPECT_LT(third, fourth) << r.err;
  EXPECT_NE(r.err.find("batch 6/6 (shapes 14-16, compiled while"), std::string::npos) << r.err;
  EXPECT_EQ(TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly)->winner_rows().size(), 16u);
}

TEST(TuneFakeGpu, AResumedRunTunesTheShapesWithoutAWinnerFirst) {
  ScratchDir dir;
  ASSERT_EQ(run_tool(tune_args(dir, "[[64, 64, 64], [128, 64, 64]]", "naive_many"), dir).status, 0);
  // The file lists a new shape last: the run takes it first, then finds the two others done.
  const auto r = run_tool(tune_args(dir, "[[64, 64, 64], [128, 64, 64], [192, 64, 64]]", "naive_many"), dir,
                          "CL2_FAKE_TRIAL_LOG=" + dir.file("trials.log"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("[1/3] 192x64x64"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[3/3] 128x64x64"), std::string::npos) << r.err;
  EXPECT_EQ(line_count(read_all(dir.file("trials.log"))), 6) << "only the new shape's variants are run";
  EXPECT_EQ(TuningDb::open(dir.file("t.sqlite"), DbMode::ReadOnly)->winner_rows().size(), 3u);
}
