#include "rank_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "strata/allpairs/held_items.hpp"
#include "strata/allpairs/sequential_run.hpp"
#include "strata/base/log.hpp"
#include "strata/cluster/message_kinds.hpp"
#include "strata/cluster/program.hpp"
#include "strata/cluster/serialization.hpp"

namespace strata::allpairs::detail {

RunKinds RunKinds::next() {
  static std::atomic<unsigned> run{0};
  return RunKinds{static_cast<cluster::MessageKind>(first + (run++ % runs) * per_run)};
}

namespace {

constexpr std::size_t results_batch = 256;
constexpr std::size_t pair_bytes = 2 * sizeof(ItemIndex);

PairSpace space_of(const ApplicationBase& app, const EngineOptions& options) {
  if (options.pairs.rows_end > options.pairs.rows_begin) {
    if (options.pairs.items() > app.item_count())
      throw Error(fmt::format("the pair space reaches item {}, but {} has {} items",
                              options.pairs.items() - 1, app.name(), app.item_count()));
    return options.pairs;
  }
  return PairSpace::all_pairs(static_cast<ItemIndex>(app.item_count()));
}

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open the input file");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  std::vector<std::byte> bytes(size);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (!in) throw InputError(path.string() + ": cannot read the input file");
  return bytes;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RankEngine::RankEngine(const ApplicationBase& application, const EngineOptions& options,
                       node::Node& node)
    : app_(application),
      options_(options),
      network_(node.network()),
      space_(space_of(application, options)),
      rank_(node.rank()),
      size_(node.size()),
      kinds_(RunKinds::next()),
      runtime_(node.runtime()),
      memory_(node.memory()),
      staging_(node.staging()),
      skipped_items_(application.item_count()) {
  if (options_.output.empty()) throw Error("all-pairs run of " + app_.name() + ": no output file");
  if (options_.jobs_per_device == 0) throw Error("jobs_per_device must be at least 1");
  check_comparison_sizes(app_);
  choose_devices(node);
  calibrate();
  for (device::Device* device : devices_) {
    stages_.push_back(std::make_unique<DeviceStage>(*device));
    jobs_.push_back(std::make_unique<JobSlots>(*device, options_.jobs_per_device,
                                               app_.comparison_result_bytes()));
  }

  cache_ = std::make_unique<ItemCache>(
      runtime_, CacheLimits{options_.cache.host_slots, options_.cache.host_bytes},
      [this](ItemIndex item, unsigned device, runtime::DataHandle data) {
        return load(item, device, data);
      },
      [this](ItemIndex item, runtime::DataHandle data, std::optional<memory::ChunkId> chunk) {
        discard(item, data, chunk);
      });
  remote_ = std::make_unique<cluster::RemoteChunks>(network_, memory_, kinds_.fetch());
  if (options_.cache.distributed && size_ > 1) {
    directory_ = std::make_unique<DistributedCache>(
        network_, options_.cache.hops,
        [this](ItemIndex item) { return cache_->holds(item).has_value(); }, kinds_.directory());
  }
  stealing_ = std::make_unique<cluster::WorkStealing>(
      network_, static_cast<unsigned>(devices_.size()), space_.pairs(), kinds_.stealing());
  if (options_.cache_aware_stealing) {
    stealing_->set_affinity(cluster::StealAffinity{
        [this] { return HeldItems(cache_->items()).encode(); },
        [](const std::string& holdings, const cluster::StealableWork& work) {
          return HeldItems::decode(holdings).share_of(PairBlock::decode(work.payload));
        }});
  }
}

void RankEngine::calibrate() {
  if (options_.calibration_items < 2) return;
  for (device::Device* device : devices_) {
    StageMeans means;
    try {
      means = measure_stages(app_, *device, options_.calibration_items);
    } catch (const InputError& error) {
      log().warn("no calibration of the device stages: {}", error.what());
      return;
    }
    std::lock_guard guard(stage_lock_);
    StageTime& preprocess = stage_times_[calibrated_preprocess_stage];
    StageTime& compare = stage_times_[calibrated_compare_stage];
    preprocess.count += means.preprocessed;
    preprocess.seconds += means.preprocess_seconds * static_cast<double>(means.preprocessed);
    compare.count += means.compared;
    compare.seconds += means.compare_seconds * static_cast<double>(means.compared);
  }
}

void RankEngine::choose_devices(node::Node& node) {
  std::vector<std::string> wanted;
  for (std::size_t at = 0; at <= options_.devices.size();) {
    const std::size_t comma = std::min(options_.devices.find(',', at), options_.devices.size());
    if (comma > at) wanted.push_back(options_.devices.substr(at, comma - at));
    at = comma + 1;
  }
  const auto devices = node.devices();
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const std::string backend = device::to_string(devices[d]->info().backend);
    if (std::find(wanted.begin(), wanted.end(), backend) == wanted.end()) continue;
    devices_.push_back(devices[d]);
    executors_.push_back(node.executors(d));
  }
  if (devices_.empty()) {
    std::string why;
    for (const auto& report : node.device_reports())
      why += fmt::format(" {}: {};", device::to_string(report.backend), report.status);
    throw Error("no device to run " + app_.name() + " on (devices \"" + options_.devices +
                "\"; the node has:" + why + ")");
  }
}

RankEngine::~RankEngine() {
  if (journal_) journal_->on_written({});  // the note goes first
  try {
    runtime_.wait_all();
  } catch (...) {
  }
  // The network thread's handlers use these: replace them before the pieces go.
  stealing_.reset();
  directory_.reset();
  for (cluster::MessageKind kind : {kinds_.results(), kinds_.figures(), kinds_.resume()})
    network_.on(kind, [](int, std::span<const std::byte>) {});
  if (cache_) cache_->clear();  // withdraws the offered items, then destroys their chunks
  remote_.reset();
  cache_.reset();
  try {
    runtime_.wait_all();
  } catch (...) {
  }
}

EngineReport RankEngine::run() {
  const auto start = std::chrono::steady_clock::now();
  // Rank 0 opens the journal and tells every rank which pairs an earlier run finished.
  network_.on(kinds_.resume(), [this](int, std::span<const std::byte> payload) {
    auto pairs =
        cluster::decode<std::vector<std::pair<ItemIndex, ItemIndex>>>(payload, "the resumed pairs");
    std::lock_guard guard(figures_lock_);
    resumed_.insert(pairs.begin(), pairs.end());
    resume_received_ = true;
    figures_arrived_.notify_all();
  });
  if (rank_ == 0) {
    network_.on(kinds_.results(), [this](int, std::span<const std::byte> payload) {
      const std::size_t record = pair_bytes + app_.result_bytes();
      for (std::size_t at = 0; at + record <= payload.size(); at += record) {
        ItemIndex left, right;
        std::memcpy(&left, payload.data() + at, sizeof left);
        std::memcpy(&right, payload.data() + at + sizeof left, sizeof right);
        journal_->append(left, right, payload.subspan(at + pair_bytes, app_.result_bytes()));
      }
    });
    network_.on(kinds_.figures(), [this](int, std::span<const std::byte> payload) {
      std::lock_guard guard(figures_lock_);
      rank_figures_.push_back(cluster::decode<RankFigures>(payload, "a rank's figures"));
      figures_arrived_.notify_all();
    });
    journal_ = std::make_unique<ResultsJournal>(
        options_.output, static_cast<std::uint32_t>(app_.result_bytes()), options_.resume);
    note_ = std::make_unique<cluster::TerminationNote>();
    journal_->on_written([this](std::uint64_t written) { update_note(written); });
    const std::vector<std::pair<ItemIndex, ItemIndex>> done(journal_->resumed().begin(),
                                                            journal_->resumed().end());
    for (int rank = 0; rank < size_; ++rank)
      network_.post_value(rank, kinds_.resume(), done);
  }
  {
    std::unique_lock guard(figures_lock_);
    figures_arrived_.wait(guard, [&] { return resume_received_; });
  }

  if (rank_ == 0 && space_.pairs() > 0) {
    const PairBlock root = PairBlock::whole(space_);
    stealing_->push(0, cluster::StealableWork{root.pairs(space_), root.encode()});
  }
  std::vector<std::thread> workers;
  for (unsigned d = 0; d < devices_.size(); ++d)
    workers.emplace_back([this, d] { worker(d); });
  // Rank 0's status thread: the progress, and the journal kept current for an interruption.
  std::thread status;
  std::mutex status_lock;
  std::condition_variable status_wake;
  bool running = true;  // under status_lock: the thread stops at once when it ends
  if (rank_ == 0) {
    status = std::thread([&] {
      std::unique_lock guard(status_lock);
      while (running) {
        guard.unlock();
        if (options_.progress) report_progress();
        try {
          journal_->flush();
        } catch (...) {
          fail(std::current_exception());
        }
        guard.lock();
        status_wake.wait_for(guard, std::chrono::milliseconds(250), [&] { return !running; });
      }
    });
  }
  for (auto& worker : workers)
    worker.join();
  try {
    runtime_.wait_all();
  } catch (...) {
    fail(std::current_exception());
  }
  {
    std::lock_guard guard(status_lock);
    running = false;
  }
  status_wake.notify_all();
  if (status.joinable()) status.join();
  if (first_error_) std::rethrow_exception(first_error_);

  const RankFigures own = figures();
  if (rank_ != 0) {
    {
      std::lock_guard guard(results_lock_);
      send_results();
    }
    RankFigures sent = own;
    sent.results_sent = results_sent_;
    network_.post_value(0, kinds_.figures(), sent);
    return {};
  }
  if (options_.progress) report_progress();
  return collect(own, seconds_since(start));
}

void RankEngine::worker(unsigned device) {
  const ItemIndex leaf_edge = std::max<ItemIndex>(options_.leaf, 1);
  while (auto work = stealing_->take(device)) {
    const PairBlock block = PairBlock::decode(work->payload);
    if (block.row_end - block.row_begin > leaf_edge ||
        block.column_end - block.column_begin > leaf_edge) {
      // The first quadrant is pushed last: this worker takes it next (depth first, the best
      // locality); thieves take the oldest, largest pieces.
      const auto quadrants = block.quadrants(space_);
      for (auto q = quadrants.rbegin(); q != quadrants.rend(); ++q)
        stealing_->push(device, cluster::StealableWork{q->pairs(space_), q->encode()});
      continue;
    }
    leaf(device, block);
  }
}

void RankEngine::leaf(unsigned device, const PairBlock& block) {
  std::uint64_t settled = 0;  // pairs finished without a job
  for (const auto& [left, right] : block.list(space_)) {
    if (resumed_.contains({left, right})) {
      ++settled;
    } else if (failed_.load() || !app_.wants(left, right) || skipped_items_[left].load() ||
               skipped_items_[right].load()) {
      if (!failed_.load()) skipped_pairs_.fetch_add(1);
      ++settled;
    } else {
      submit_job(device, left, right);
    }
  }
  if (settled > 0) stealing_->finished(settled);
}

void RankEngine::submit_job(unsigned device, ItemIndex left, ItemIndex right) {
  const unsigned slot = jobs_[device]->acquire();
  const ItemUse a = cache_->acquire(left, device);
  const ItemUse b = cache_->acquire(right, device);
  const runtime::ChunkData result =
      staging_.create_data(fmt::format("comparison {},{}", left, right), app_.comparison_bytes());
  DeviceStage& stage = *stages_[device];
  // The comparison's result comes back into the job slot's (pinned) host buffer: no staging of
  // its own.
  const std::span<std::byte> comparison = jobs_[device]->result(slot);

  const runtime::TaskHandle compare = runtime_.submit(
      runtime::TaskSpec(fmt::format("compare {} {}", left, right))
          .on(executors_[device].compute)
          .after(a.ready)
          .after(b.ready)
          .reads(a.data)
          .reads(b.data)
          .writes(result.data)
          .footprint(2 * app_.slot_bytes()),
      [this, left, right, a, b, result, comparison, &stage](runtime::TaskContext& context) {
        if (skipped_items_[left].load() || skipped_items_[right].load()) return;
        const auto since = std::chrono::steady_clock::now();
        const memory::ChunkView out = staging_.view(context, result.data);
        const device::Event done = app_.compare(stage, left, staging_.view(context, a.data), right,
                                                staging_.view(context, b.data), out);
        stage.time(done, since, [this](double s) { add_time(compare_stage, s); });
        // The result comes back on the compute queue itself, in order after the kernel: no
        // cross-queue wait, and no call into the backend from its completion callbacks.
        const device::Event copied =
            stage.device()
                .queue(device::QueueKind::compute)
                .copy_to_host(comparison.data(), *out.buffer, out.offset, comparison.size());
        runtime::complete_when(context, copied);
      });
  // What follows the comparison runs on the CPU pool: postprocessing, and releasing memory, which
  // may wait for copies in flight (so never on the device queue's thread that completed it).
  compare.on_complete(
      [this, device, slot, left, right, result, comparison](const runtime::TaskHandle& h) {
        post_or_fail("postprocess", [this, h, device, slot, left, right, result, comparison] {
          finish_job(h, left, right, comparison);
          staging_.destroy_data(result);
          cache_->release(left);
          cache_->release(right);
          jobs_[device]->release(slot);
          stealing_->finished(1);
        });
      });
}

void RankEngine::finish_job(const runtime::TaskHandle& compare, ItemIndex left, ItemIndex right,
                            std::span<const std::byte> comparison) {
  if (compare.status() != runtime::TaskStatus::succeeded) {
    try {
      compare.wait();
    } catch (...) {
      fail(std::current_exception());
    }
    return;
  }
  if (skipped_items_[left].load() || skipped_items_[right].load()) {
    skipped_pairs_.fetch_add(1);
    return;
  }
  try {
    const auto since = std::chrono::steady_clock::now();
    std::vector<std::byte> record(app_.result_bytes());
    app_.postprocess_bytes(left, right, comparison, record);
    record_result(left, right, record);
    computed_.fetch_add(1);
    add_time(postprocess_stage, seconds_since(since));
  } catch (...) {
    fail(std::current_exception());
  }
}

void RankEngine::record_result(ItemIndex left, ItemIndex right, std::span<const std::byte> result) {
  if (rank_ == 0) {
    journal_->append(left, right, result);
    return;
  }
  std::lock_guard guard(results_lock_);
  const auto* l = reinterpret_cast<const std::byte*>(&left);
  const auto* r = reinterpret_cast<const std::byte*>(&right);
  outgoing_.insert(outgoing_.end(), l, l + sizeof left);
  outgoing_.insert(outgoing_.end(), r, r + sizeof right);
  outgoing_.insert(outgoing_.end(), result.begin(), result.end());
  if (++outgoing_records_ >= results_batch) send_results();
}

void RankEngine::send_results() {
  if (outgoing_records_ == 0) return;
  network_.post(0, kinds_.results(), std::move(outgoing_));
  results_sent_ += outgoing_records_;
  outgoing_ = {};
  outgoing_records_ = 0;
}

runtime::TaskHandle RankEngine::load(ItemIndex item, unsigned device, runtime::DataHandle data) {
  if (directory_) return obtain(item, device, data);
  return load_locally(item, device, data);
}

runtime::TaskHandle RankEngine::obtain(ItemIndex item, unsigned device, runtime::DataHandle data) {
  return runtime_.submit(
      runtime::TaskSpec(fmt::format("obtain item {}", item)).on(runtime_.io()),
      [this, item, device, data](runtime::TaskContext& context) {
        auto completion = std::make_shared<runtime::DeferredCompletion>(context.defer_completion());
        auto from_file = [this, item, device, data, completion] {
          remote_misses_.fetch_add(1);
          load_locally(item, device, data).on_complete([completion](const runtime::TaskHandle& h) {
            try {
              h.wait();
              completion->complete();
            } catch (...) {
              completion->fail(std::current_exception());
            }
          });
        };
        directory_->lookup(item, [this, item, data, completion,
                                  from_file](std::optional<int> holder) {
          if (!holder || *holder == rank_) {
            from_file();
            return;
          }
          remote_->fetch(
              *holder, item,
              [this, item, data, completion, from_file](memory::ChunkId replica,
                                                        std::exception_ptr error) {
                if (error) {  // discarded meanwhile: load it here
                  from_file();
                  return;
                }
                remote_hits_.fetch_add(1);
                staging_.bind(data, replica);
                // Off the network thread: loaded() may release memory.
                runtime_.post(runtime_.cpu(), "fetched an item", [this, item, replica, completion] {
                  try {
                    remote_->offer(item, replica);
                    cache_->loaded(item, replica, memory_.chunk_bytes(replica));
                  } catch (...) {
                    completion->fail(std::current_exception());
                    return;
                  }
                  completion->complete();
                });
              });
        });
      });
}

runtime::TaskHandle RankEngine::load_locally(ItemIndex item, unsigned device,
                                             runtime::DataHandle data) {
  struct Load {
    std::vector<std::byte> file;
    std::optional<memory::ChunkId> parsed_chunk, item_chunk;
    std::uint64_t item_bytes = 0;
    runtime::DataHandle parsed, target;
  };
  auto state = std::make_shared<Load>();
  state->parsed = runtime_.create_data(fmt::format("parsed item {}", item));
  state->target = runtime_.create_data(fmt::format("preprocessed item {}", item));
  loads_.fetch_add(1);
  const std::filesystem::path path = app_.file_of(item);
  const auto skip_or_throw = [this, item](const InputError& error) {
    if (options_.bad_input == BadInput::stop) throw error;
    log().warn("skipping item {}: {}", item, error.what());
    skipped_items_[item].store(true);
  };

  const runtime::TaskHandle read = runtime_.submit(
      runtime::TaskSpec(fmt::format("read {}", path.filename().string())).on(runtime_.io()),
      [this, state, path, skip_or_throw] {
        const auto since = std::chrono::steady_clock::now();
        try {
          state->file = read_file(path);
        } catch (const InputError& error) {
          skip_or_throw(error);
        }
        bytes_read_.fetch_add(state->file.size());
        add_time(read_stage, seconds_since(since));
      });
  const runtime::TaskHandle parse = runtime_.submit(
      runtime::TaskSpec(fmt::format("parse {}", path.filename().string())).after(read),
      [this, state, item, path, data, skip_or_throw] {
        if (skipped_items_[item].load()) return;
        const auto since = std::chrono::steady_clock::now();
        std::vector<std::byte> parsed;
        try {
          parsed = app_.parse(item, state->file);
          if (parsed.empty()) throw InputError(path.string() + ": parsed to no data");
        } catch (const InputError& error) {
          skip_or_throw(error);
          return;
        }
        state->file = {};
        state->item_bytes = app_.item_bytes(item, parsed.size());
        state->parsed_chunk =
            memory_.create_chunk(fmt::format("parsed item {}", item), parsed.size(), parsed);
        state->item_chunk = memory_.create_chunk(fmt::format("item {}", item), state->item_bytes);
        staging_.bind(state->parsed, *state->parsed_chunk);
        staging_.bind(state->target, *state->item_chunk);
        staging_.bind(data, *state->item_chunk);
        add_time(parse_stage, seconds_since(since));
      });
  DeviceStage& stage = *stages_[device];
  const runtime::TaskHandle preprocess = runtime_.submit(
      runtime::TaskSpec(fmt::format("preprocess item {}", item))
          .on(executors_[device].compute)
          .after(parse)
          .updates(state->parsed)
          .writes(state->target)
          .footprint(2 * app_.slot_bytes()),
      [this, state, item, &stage](runtime::TaskContext& context) {
        if (skipped_items_[item].load()) return;
        const auto since = std::chrono::steady_clock::now();
        const device::Event done =
            app_.preprocess(stage, item, staging_.view(context, state->parsed),
                            staging_.view(context, state->target));
        stage.time(done, since, [this](double s) { add_time(preprocess_stage, s); });
        runtime::complete_when(context, done);
      });
  // Releasing the parsed bytes may wait for copies in flight: on the CPU pool, as for comparisons.
  preprocess.on_complete([this, state, item](const runtime::TaskHandle& h) {
    const bool succeeded = h.status() == runtime::TaskStatus::succeeded;
    post_or_fail("release a parsed item", [this, state, item, succeeded] {
      staging_.unbind(state->parsed);
      staging_.unbind(state->target);
      if (state->parsed_chunk) memory_.destroy_chunk(*state->parsed_chunk);
      if (!succeeded) {
        if (state->item_chunk) memory_.destroy_chunk(*state->item_chunk);
        state->item_chunk.reset();
        cache_->loaded(item, std::nullopt, 0);
        return;
      }
      // Offered first: the cache may discard the item as soon as it is loaded, withdrawing it.
      if (state->item_chunk) remote_->offer(item, *state->item_chunk);
      cache_->loaded(item, state->item_chunk, state->item_bytes);
    });
  });
  return preprocess;
}

void RankEngine::discard(ItemIndex item, runtime::DataHandle data,
                         std::optional<memory::ChunkId> chunk) {
  staging_.unbind(data);
  if (!chunk) return;
  const memory::ChunkId id = *chunk;
  remote_->withdraw(item, [this, id] { memory_.destroy_chunk(id); });
}

void RankEngine::add_time(Stage stage, double seconds) {
  std::lock_guard guard(stage_lock_);
  ++stage_times_[stage].count;
  stage_times_[stage].seconds += seconds;
}

void RankEngine::fail(std::exception_ptr error) {
  std::lock_guard guard(error_lock_);
  if (!first_error_) first_error_ = error;
  failed_.store(true);
}

void RankEngine::post_or_fail(std::string name, std::function<void()> work) {
  runtime_.post(runtime_.cpu(), std::move(name), [this, work = std::move(work)] {
    try {
      work();
    } catch (...) {
      fail(std::current_exception());
    }
  });
}

void RankEngine::update_note(std::uint64_t written) {
  note_->set(fmt::format(
      "strata: all-pairs run of {} interrupted: {} of {} pairs are done, their results in the "
      "journal {} ({} pairs left); run the same command with --resume to continue from there",
      app_.name(), written, space_.pairs(), journal_->path().string(), space_.pairs() - written));
}

void RankEngine::report_progress() {
  Progress progress;
  progress.total = space_.pairs();
  progress.done = journal_->records() + skipped_pairs_.load();
  options_.progress(progress);
}

RankFigures RankEngine::figures() const {
  RankFigures f;
  f.computed = computed_.load();
  f.skipped_pairs = skipped_pairs_.load();
  for (ItemIndex item = 0; item < skipped_items_.size(); ++item)
    if (skipped_items_[item].load()) f.skipped_items.push_back(item);
  f.loads = loads_.load();
  f.remote_hits = remote_hits_.load();
  f.remote_misses = remote_misses_.load();
  f.bytes_read = bytes_read_.load();
  const cluster::StealStats steals = stealing_->stats();
  f.steals_local = steals.local_steals;
  f.steals_remote = steals.remote_steals;
  f.devices = static_cast<unsigned>(devices_.size());
  std::lock_guard guard(stage_lock_);
  for (const StageTime& stage : stage_times_) {
    f.counts.push_back(stage.count);
    f.seconds.push_back(stage.seconds);
  }
  return f;
}

EngineReport RankEngine::collect(const RankFigures& own, double seconds) {
  {
    std::unique_lock guard(figures_lock_);
    figures_arrived_.wait(guard, [&] { return rank_figures_.size() + 1 == std::size_t(size_); });
  }
  EngineReport report;
  report.application = app_.name();
  report.ranks = size_;
  report.items = space_.items();
  report.pairs_total = space_.pairs();
  report.pairs_resumed = journal_->resumed().size();
  std::vector<RankFigures> all = rank_figures_;
  all.push_back(own);
  StageTime* times[stages] = {&report.read,
                              &report.parse,
                              &report.preprocess,
                              &report.compare,
                              &report.postprocess,
                              &report.calibrated_preprocess,
                              &report.calibrated_compare};
  std::set<ItemIndex> skipped;  // an item may be met by several ranks
  for (const RankFigures& f : all) {
    skipped.insert(f.skipped_items.begin(), f.skipped_items.end());
    report.devices += f.devices;
    report.pairs_computed += f.computed;
    report.pairs_skipped += f.skipped_pairs;
    report.loads += f.loads;
    report.remote_hits += f.remote_hits;
    report.remote_misses += f.remote_misses;
    report.bytes_read += f.bytes_read;
    report.steals_local += f.steals_local;
    report.steals_remote += f.steals_remote;
    for (std::size_t s = 0; s < stages && s < f.counts.size(); ++s) {
      times[s]->count += f.counts[s];
      times[s]->seconds += f.seconds[s];
    }
  }
  report.items_skipped = skipped.size();
  journal_->on_written({});
  note_.reset();  // complete: nothing to resume
  journal_->finish(report.pairs_total - report.pairs_skipped);
  report.seconds = seconds;
  report.runtime_summary = runtime_.summary().format();
  report.memory_summary = memory_.stats().format();
  return report;
}

}  // namespace strata::allpairs::detail
