#include "format/pickle_machine.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "format/byte_cursor.h"
#include "format/limits.h"

namespace wasmlm {

namespace {

enum Op : uint8_t {
  MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', BINFLOAT = 'G', BININT = 'J', BININT1 = 'K',
  BININT2 = 'M', NONE = 'N', BINPERSID = 'Q', REDUCE = 'R', BINSTRING = 'T', SHORT_BINSTRING = 'U',
  BINUNICODE = 'X', APPEND = 'a', BUILD = 'b', GLOBAL = 'c', DICT = 'd', APPENDS = 'e', BINGET = 'h',
  LONG_BINGET = 'j', LIST = 'l', BINPUT = 'q', LONG_BINPUT = 'r', SETITEM = 's', TUPLE = 't', SETITEMS = 'u',
  EMPTY_DICT = '}', EMPTY_LIST = ']', EMPTY_TUPLE = ')', BINBYTES = 'B', SHORT_BINBYTES = 'C',
  PROTO = 0x80, NEWOBJ = 0x81, TUPLE1 = 0x85, TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89,
  LONG1 = 0x8a, LONG4 = 0x8b, SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d, BINBYTES8 = 0x8e,
  STACK_GLOBAL = 0x93, MEMOIZE = 0x94, FRAME = 0x95,
};

constexpr size_t kMaxGlobalLine = 256;

}  // namespace

class PickleMachine::Impl {
 public:
  Impl(ReadAtStream& in, PickleHeap& heap, PickleHooks& hooks, std::string where)
      : in_(in), heap_(heap), hooks_(hooks), where_(std::move(where)) {}

  PyValue run() {
    // One try around the whole loop (kept out of line): in wasm a call made
    // inside a try block costs a trip through JS, not to be paid per opcode.
    try {
      return loop();
    } catch (const Error& e) {
      if (!stepping_) throw;
      stepping_ = false;
      // Hooks and reads report file offsets; say where that is in the pickle too.
      if (e.offset() < in_.begin() || e.offset() > in_.end()) throw;
      throw Error(e.code(), e.offset(), e.detail() + " (" + where_ + " byte " + std::to_string(e.offset() - in_.begin()) + ")");
    } catch (...) {
      stepping_ = false;
      in_.seek(op_at_);  // NeedRange: the next run() starts this opcode again
      throw;
    }
  }

  uint64_t ops() const { return ops_; }

 private:
  [[noreturn]] void bad(ErrorCode code, const std::string& message) { fail(code, op_at_, message); }

  __attribute__((noinline)) PyValue loop() {
    for (;;) {
      op_at_ = in_.pos();
      uint8_t op = in_.u8("a pickle (no STOP opcode)");
      if (op == STOP) {
        if (stack_.size() != 1 || !marks_.empty())
          fail(ErrorCode::BadFormat, op_at_, "STOP with " + std::to_string(stack_.size()) + " values on the stack (expected 1) (" +
                                                 where_ + " byte " + std::to_string(op_at_ - in_.begin()) + ")");
        ++ops_;
        return stack_.back();
      }
      stepping_ = true;
      step(op);
      stepping_ = false;
      ++ops_;
    }
  }

  uint64_t le(size_t n, const char* what) {
    uint8_t b[8];
    in_.read(b, n, what);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(b[i]) << (8 * i);
    return v;
  }

  void push(PyValue v) {
    if (stack_.size() >= limits::kMaxPickleStack)
      bad(ErrorCode::TooLarge, "pickle stack deeper than " + std::to_string(limits::kMaxPickleStack));
    stack_.push_back(v);
  }
  PyValue pop(const char* op) {
    if (stack_.size() <= floor()) bad(ErrorCode::BadFormat, std::string(op) + " on an empty stack");
    PyValue v = stack_.back();
    stack_.pop_back();
    return v;
  }
  PyValue& top(const char* op) {
    if (stack_.size() <= floor()) bad(ErrorCode::BadFormat, std::string(op) + " on an empty stack");
    return stack_.back();
  }
  // Values above the innermost MARK may be popped; below it only via pop_mark().
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<PyValue> pop_mark(const char* op) {
    if (marks_.empty()) bad(ErrorCode::BadFormat, std::string(op) + " without a MARK");
    size_t at = marks_.back();
    marks_.pop_back();
    std::vector<PyValue> items(stack_.begin() + static_cast<std::ptrdiff_t>(at), stack_.end());
    stack_.resize(at);
    return items;
  }

  PyValue container(PyKind kind, const std::vector<PyValue>& items) {
    PyValue c = heap_.make(kind, op_at_);
    for (PyValue v : items) heap_.add_item(c, v, op_at_);
    return c;
  }
  PyValue expect(PyValue v, PyKind kind, const char* op) {
    if (v.kind != kind)
      bad(ErrorCode::BadFormat, std::string(op) + " expects a " + py_kind_name(kind) + ", found a " + py_kind_name(v.kind));
    return v;
  }

  std::string text(uint64_t n, const char* what, bool utf8) {
    if (n > limits::kMaxStringBytes)
      bad(ErrorCode::TooLarge, std::string(what) + " of " + std::to_string(n) + " bytes (limit " +
                                   std::to_string(limits::kMaxStringBytes) + ")");
    if (n > in_.left())
      bad(ErrorCode::Truncated, std::string(what) + " of " + std::to_string(n) + " bytes, but only " +
                                    std::to_string(in_.left()) + " bytes follow");
    std::string s = in_.string(n, what);
    if (utf8 && !is_valid_utf8(s)) bad(ErrorCode::BadFormat, std::string(what) + " is not valid UTF-8");
    return s;
  }
  void push_text(PyKind kind, uint64_t n, const char* what) {
    push(heap_.make(kind, op_at_, text(n, what, kind == PyKind::Str)));
  }

  std::string line(const char* what) {
    std::string s;
    for (;;) {
      char c = static_cast<char>(in_.u8(what));
      if (c == '\n') return s;
      if (s.size() >= kMaxGlobalLine) bad(ErrorCode::BadFormat, std::string(what) + " longer than 256 bytes");
      s += c;
    }
  }

  void put(uint64_t index) {
    if (index >= limits::kMaxPickleMemo)
      bad(ErrorCode::TooLarge, "memo index " + std::to_string(index) + " beyond the limit " + std::to_string(limits::kMaxPickleMemo));
    memo_[static_cast<uint32_t>(index)] = top("PUT");
  }
  void get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) bad(ErrorCode::BadFormat, "memo index " + std::to_string(index) + " was never stored");
    push(it->second);
  }

  PyValue long_int(uint64_t n) {
    std::string b = text(n, "long integer", false);
    if (n <= 8) {
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[i])) << (8 * i);
      if (n > 0 && n < 8 && (static_cast<uint8_t>(b[n - 1]) & 0x80)) v |= ~uint64_t(0) << (8 * n);
      return PyValue::integer(static_cast<int64_t>(v));
    }
    return heap_.make(PyKind::BigInt, op_at_, std::move(b));
  }

  void step(uint8_t op) {
    switch (op) {
      case PROTO: {
        uint8_t proto = in_.u8("PROTO");
        if (proto > 5) bad(ErrorCode::Unsupported, "pickle protocol " + std::to_string(proto) + " (expected 2 to 5)");
        return;
      }
      case FRAME: {
        uint64_t n = le(8, "FRAME");
        if (n > in_.left()) bad(ErrorCode::Truncated, "FRAME of " + std::to_string(n) + " bytes runs past the pickle's end");
        return;
      }
      case MARK:
        if (marks_.size() >= limits::kMaxPickleMarks)
          bad(ErrorCode::TooLarge, "more than " + std::to_string(limits::kMaxPickleMarks) + " nested MARKs");
        marks_.push_back(stack_.size());
        return;
      case POP: pop("POP"); return;
      case POP_MARK: pop_mark("POP_MARK"); return;
      case DUP: push(top("DUP")); return;

      case NONE: push(PyValue::none()); return;
      case NEWTRUE: push(PyValue::boolean(true)); return;
      case NEWFALSE: push(PyValue::boolean(false)); return;
      case BININT: push(PyValue::integer(static_cast<int32_t>(le(4, "BININT")))); return;
      case BININT1: push(PyValue::integer(in_.u8("BININT1"))); return;
      case BININT2: push(PyValue::integer(static_cast<int64_t>(le(2, "BININT2")))); return;
      case LONG1: push(long_int(in_.u8("LONG1"))); return;
      case LONG4: push(long_int(le(4, "LONG4"))); return;
      case BINFLOAT: {
        uint8_t b[8];
        in_.read(b, 8, "BINFLOAT");
        uint64_t bits = 0;
        for (uint8_t x : b) bits = bits << 8 | x;  // big-endian
        double d;
        std::memcpy(&d, &bits, 8);
        push(PyValue::real(d));
        return;
      }

      case SHORT_BINUNICODE: push_text(PyKind::Str, in_.u8("SHORT_BINUNICODE"), "string"); return;
      case BINUNICODE: push_text(PyKind::Str, le(4, "BINUNICODE"), "string"); return;
      case BINUNICODE8: push_text(PyKind::Str, le(8, "BINUNICODE8"), "string"); return;
      case SHORT_BINSTRING: push_text(PyKind::Bytes, in_.u8("SHORT_BINSTRING"), "byte string"); return;
      case BINSTRING: push_text(PyKind::Bytes, le(4, "BINSTRING"), "byte string"); return;
      case SHORT_BINBYTES: push_text(PyKind::Bytes, in_.u8("SHORT_BINBYTES"), "bytes"); return;
      case BINBYTES: push_text(PyKind::Bytes, le(4, "BINBYTES"), "bytes"); return;
      case BINBYTES8: push_text(PyKind::Bytes, le(8, "BINBYTES8"), "bytes"); return;

      case EMPTY_DICT: push(heap_.make(PyKind::Dict, op_at_)); return;
      case EMPTY_LIST: push(heap_.make(PyKind::List, op_at_)); return;
      case EMPTY_TUPLE: push(heap_.make(PyKind::Tuple, op_at_)); return;
      case TUPLE: push(container(PyKind::Tuple, pop_mark("TUPLE"))); return;
      case LIST: push(container(PyKind::List, pop_mark("LIST"))); return;
      case TUPLE1: case TUPLE2: case TUPLE3: {
        size_t n = op - TUPLE1 + 1;
        std::vector<PyValue> items(n);
        for (size_t i = n; i-- > 0;) items[i] = pop("TUPLEn");
        push(container(PyKind::Tuple, items));
        return;
      }
      case DICT: {
        std::vector<PyValue> items = pop_mark("DICT");
        if (items.size() % 2) bad(ErrorCode::BadFormat, "DICT with an odd number of keys and values");
        push(container(PyKind::Dict, items));
        return;
      }
      case APPEND: {
        PyValue v = pop("APPEND");
        heap_.add_item(expect(top("APPEND"), PyKind::List, "APPEND"), v, op_at_);
        return;
      }
      case APPENDS: {
        std::vector<PyValue> items = pop_mark("APPENDS");
        PyValue list = expect(top("APPENDS"), PyKind::List, "APPENDS");
        for (PyValue v : items) heap_.add_item(list, v, op_at_);
        return;
      }
      case SETITEM: {
        PyValue v = pop("SETITEM"), k = pop("SETITEM");
        PyValue dict = expect(top("SETITEM"), PyKind::Dict, "SETITEM");
        heap_.add_item(dict, k, op_at_);
        heap_.add_item(dict, v, op_at_);
        return;
      }
      case SETITEMS: {
        std::vector<PyValue> items = pop_mark("SETITEMS");
        if (items.size() % 2) bad(ErrorCode::BadFormat, "SETITEMS with an odd number of keys and values");
        PyValue dict = expect(top("SETITEMS"), PyKind::Dict, "SETITEMS");
        for (PyValue v : items) heap_.add_item(dict, v, op_at_);
        return;
      }

      case BINPUT: put(in_.u8("BINPUT")); return;
      case LONG_BINPUT: put(le(4, "LONG_BINPUT")); return;
      case MEMOIZE: put(memo_.size()); return;
      case BINGET: get(in_.u8("BINGET")); return;
      case LONG_BINGET: get(le(4, "LONG_BINGET")); return;

      case GLOBAL: {
        std::string module = line("GLOBAL module name");
        std::string name = line("GLOBAL name");
        push(hooks_.global(heap_, module, name, op_at_));
        return;
      }
      case STACK_GLOBAL: {
        PyValue name = expect(pop("STACK_GLOBAL"), PyKind::Str, "STACK_GLOBAL");
        PyValue module = expect(pop("STACK_GLOBAL"), PyKind::Str, "STACK_GLOBAL");
        push(hooks_.global(heap_, heap_.at(module).text, heap_.at(name).text, op_at_));
        return;
      }
      case REDUCE: case NEWOBJ: {
        const char* name = op == REDUCE ? "REDUCE" : "NEWOBJ";
        PyValue args = expect(pop(name), PyKind::Tuple, name);
        PyValue callable = pop(name);
        push(hooks_.call(heap_, callable, args, op == NEWOBJ, op_at_));
        return;
      }
      case BUILD: {
        PyValue state = pop("BUILD");
        hooks_.build(heap_, top("BUILD"), state, op_at_);
        return;
      }
      case BINPERSID: {
        PyValue pid = pop("BINPERSID");
        push(hooks_.persistent_load(heap_, pid, op_at_));
        return;
      }
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        std::string shown = op >= 0x20 && op < 0x7f ? std::string(" '") + static_cast<char>(op) + "'" : "";
        bad(ErrorCode::Unsupported, std::string("refused: pickle opcode ") + hex + shown +
                                        " is not one torch.save writes");
      }
    }
  }

  ReadAtStream& in_;
  PickleHeap& heap_;
  PickleHooks& hooks_;
  std::string where_;
  uint64_t op_at_ = 0;
  uint64_t ops_ = 0;
  bool stepping_ = false;  // inside step(): its errors get the offset in the pickle
  std::vector<PyValue> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, PyValue> memo_;
};

PickleMachine::PickleMachine(ReadAtStream& in, PickleHeap& heap, PickleHooks& hooks, std::string where)
    : impl_(std::make_unique<Impl>(in, heap, hooks, std::move(where))) {}
PickleMachine::~PickleMachine() = default;
PyValue PickleMachine::run() { return impl_->run(); }
uint64_t PickleMachine::ops() const { return impl_->ops(); }

PyValue run_pickle(ReadAtStream& in, PickleHeap& heap, PickleHooks& hooks, const std::string& where) {
  return PickleMachine(in, heap, hooks, where).run();
}

int pickle_protocol_at(const ReadAt& read_at, uint64_t offset) {
  uint8_t head[2] = {0, 0};
  read_exact(read_at, offset, head, 2, "a pickle");
  return head[0] == PROTO ? head[1] : 0;
}

}  // namespace wasmlm
