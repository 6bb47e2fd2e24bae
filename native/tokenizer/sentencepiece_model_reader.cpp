#include "tokenizer/sentencepiece_model_reader.h"

#include "core/error.h"
#include "tokenizer/protobuf_reader.h"
#include "tokenizer/tokenizer.h"

namespace wasmlm {

namespace {

// Field numbers of sentencepiece_model.proto.
enum : uint32_t {
  kModelPieces = 1, kModelTrainerSpec = 2, kModelNormalizerSpec = 3,
  kPiecePiece = 1, kPieceScore = 2, kPieceType = 3,
  kTrainerModelType = 3, kTrainerUnkId = 40, kTrainerBosId = 41, kTrainerEosId = 42, kTrainerPadId = 43,
  kNormalizerCharsmap = 2, kNormalizerAddDummyPrefix = 3, kNormalizerRemoveExtraWhitespaces = 4,
};

enum : int32_t { kUnigram = 1, kBpe = 2, kWord = 3, kChar = 4 };

void expect_type(const ProtoField& f, WireType type, const char* what) {
  if (f.type != type) fail(ErrorCode::BadFormat, f.offset, std::string("SentencePiece ") + what + ": unexpected wire type");
}

void read_piece(const ProtoReader& outer, const ProtoField& field, VocabMetadata* v) {
  ProtoReader r(field.bytes, outer.offset_of(field.bytes));
  std::string piece;
  float score = 0.0f;
  int32_t type = static_cast<int32_t>(TokenType::Normal);
  for (ProtoField f; r.next(&f);) {
    if (f.number == kPiecePiece) {
      expect_type(f, WireType::Bytes, "piece");
      piece.assign(f.bytes);
    } else if (f.number == kPieceScore) {
      expect_type(f, WireType::Fixed32, "score");
      score = f.as_float();
    } else if (f.number == kPieceType) {
      expect_type(f, WireType::Varint, "type");
      type = f.as_int32();
      // NORMAL=1 UNKNOWN=2 CONTROL=3 USER_DEFINED=4 UNUSED=5 BYTE=6: GGUF's numbering.
      if (type < 1 || type > 6)
        fail(ErrorCode::BadFormat, f.offset, "SentencePiece piece type " + std::to_string(type) + " is invalid");
    }
  }
  v->tokens.push_back(std::move(piece));
  v->scores.push_back(score);
  v->types.push_back(type);
}

}  // namespace

VocabMetadata read_sentencepiece_model(std::string_view bytes) {
  VocabMetadata v;
  v.model = "llama";
  int32_t model_type = kUnigram, unk = 0, bos = 1, eos = 2, pad = -1;  // the proto's defaults
  uint64_t model_type_offset = 0;
  bool add_dummy_prefix = true, remove_extra_whitespaces = true;
  std::vector<uint8_t> charsmap;

  ProtoReader r(bytes);
  for (ProtoField f; r.next(&f);) {
    if (f.number == kModelPieces) {
      expect_type(f, WireType::Bytes, "piece");
      read_piece(r, f, &v);
    } else if (f.number == kModelTrainerSpec) {
      expect_type(f, WireType::Bytes, "trainer_spec");
      ProtoReader t(f.bytes, r.offset_of(f.bytes));
      for (ProtoField g; t.next(&g);) {
        if (g.type != WireType::Varint) continue;
        switch (g.number) {
          case kTrainerModelType: model_type = g.as_int32(); model_type_offset = g.offset; break;
          case kTrainerUnkId: unk = g.as_int32(); break;
          case kTrainerBosId: bos = g.as_int32(); break;
          case kTrainerEosId: eos = g.as_int32(); break;
          case kTrainerPadId: pad = g.as_int32(); break;
          default: break;
        }
      }
    } else if (f.number == kModelNormalizerSpec) {
      expect_type(f, WireType::Bytes, "normalizer_spec");
      ProtoReader n(f.bytes, r.offset_of(f.bytes));
      for (ProtoField g; n.next(&g);) {
        if (g.number == kNormalizerCharsmap && g.type == WireType::Bytes)
          charsmap.assign(g.bytes.begin(), g.bytes.end());
        if (g.type != WireType::Varint) continue;
        if (g.number == kNormalizerAddDummyPrefix) add_dummy_prefix = g.value != 0;
        if (g.number == kNormalizerRemoveExtraWhitespaces) remove_extra_whitespaces = g.value != 0;
      }
    }
  }
  if (v.tokens.empty()) fail(ErrorCode::BadFormat, 0, "SentencePiece model has no pieces");
  // BPE models merge the best-scoring adjacent pieces (llama.cpp's "llama");
  // unigram models take the best-scoring segmentation (its "t5", UGM).
  v.model = model_type == kUnigram ? "t5" : "llama";
  if (model_type == kUnigram) v.precompiled_charsmap = std::move(charsmap);
  if (model_type != kUnigram && model_type != kBpe)
    fail(ErrorCode::Unsupported, model_type_offset,
         std::string("SentencePiece model type ") + (model_type == kWord ? "WORD" : model_type == kChar ? "CHAR" : std::to_string(model_type)) +
             " is not supported (only unigram and BPE)");

  const auto id_or_none = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < v.tokens.size() ? id : -1; };
  v.unk = id_or_none(unk);
  v.bos = id_or_none(bos);
  v.eos = id_or_none(eos);
  v.pad = id_or_none(pad);
  v.add_space_prefix = add_dummy_prefix;
  v.add_bos = true;  // as LLaMA; the .model itself does not say
  v.add_eos = false;
  v.remove_extra_whitespaces = remove_extra_whitespaces;
  return v;
}

}  // namespace wasmlm
