// A pickle virtual machine for the subset of protocols 2-5 that torch.save
// writes. It never imports or calls anything: GLOBAL, REDUCE, NEWOBJ, BUILD
// and BINPERSID are handed to PickleHooks, which allow-list what they accept.
// Any other opcode is refused with its byte offset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "format/pickle_value.h"
#include "format/pth_read_at.h"

namespace wasmlm {

class PickleHooks {
 public:
  virtual ~PickleHooks() = default;
  // GLOBAL / STACK_GLOBAL: must fail (Refused) for anything not allow-listed.
  virtual PyValue global(PickleHeap& heap, const std::string& module, const std::string& name, uint64_t offset) = 0;
  // REDUCE (callable(*args)) and NEWOBJ (cls.__new__(cls, *args)); args is a Tuple.
  virtual PyValue call(PickleHeap& heap, PyValue callable, PyValue args, bool newobj, uint64_t offset) = 0;
  virtual PyValue persistent_load(PickleHeap& heap, PyValue pid, uint64_t offset) = 0;
  // BUILD: obj.__setstate__(state).
  virtual void build(PickleHeap& heap, PyValue obj, PyValue state, uint64_t offset) = 0;
};

// Runs one pickle from `in` up to and including its STOP opcode; `in` is
// left just after STOP. `where` names the pickle in error messages
// ("data.pkl"); errors carry the absolute file offset of the opcode and say
// its offset inside the pickle.
//
// Every opcode reads all its argument bytes before it changes anything, so
// when a read throws NeedRange (bytes not there yet) the machine rewinds `in`
// to that opcode and stays consistent: run() again, once the bytes are
// there, goes on from it. No opcode runs twice.
class PickleMachine {
 public:
  PickleMachine(ReadAtStream& in, PickleHeap& heap, PickleHooks& hooks, std::string where);
  ~PickleMachine();

  PyValue run();
  uint64_t ops() const;  // opcodes run so far

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// A whole pickle in one go (bytes that are all there).
PyValue run_pickle(ReadAtStream& in, PickleHeap& heap, PickleHooks& hooks, const std::string& where);

// The protocol the pickle at `offset` was written with: its leading PROTO's
// argument, or 0 without one (protocol 0 or 1).
int pickle_protocol_at(const ReadAt& read_at, uint64_t offset);

}  // namespace wasmlm
