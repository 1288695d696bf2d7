// Gzipped FASTA: what the generator writes reads back; bad input names the file and line.

#include "phylogeny/fasta.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include "phylogeny/amino_acids.hpp"
#include "phylogeny/data_directory.hpp"
#include "strata/allpairs/application.hpp"
#include "temp_directory.hpp"

namespace strata::apps::phylogeny {
namespace {

using allpairs::InputError;

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

// `text` compressed as one gzip member.
std::string gzip(const std::string& text) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, text.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// The message of the InputError `call` throws ("" if none).
template <typename Call>
std::string input_error(Call call) {
  try {
    call();
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(PhylogenyFasta, WhatIsWrittenReadsBack) {
  testing::TempDirectory dir;
  const Proteome proteome = {{"P00001", std::string(130, 'A') + "CDEFGHIKLMNPQRSTVWY"},
                             {"P00002", "MKV"}};
  const auto path = dir.path() / "sp.faa.gz";
  write_fasta_gz(path, "sp", proteome);
  const std::string text = gunzip(bytes_of(read_text_file(path)), path.string());
  EXPECT_EQ(text.substr(0, 33), ">sp_P00001 protein P00001 OS=sp\nA");
  EXPECT_NE(text.find(std::string(60, 'A') + "\n" + std::string(60, 'A') + "\n"),
            std::string::npos);  // 60 residues per line

  const auto codes = parse_fasta(text, path.string());
  std::vector<std::uint8_t> expected;
  for (const auto& protein : proteome) {
    for (const char c : protein.sequence)
      expected.push_back(static_cast<std::uint8_t>(residue_code(c)));
    expected.push_back(protein_separator);
  }
  EXPECT_EQ(codes, expected);
}

TEST(PhylogenyFasta, AcceptsLowercaseBlanksStopsAndOtherResidues) {
  const auto codes = parse_fasta(">a\r\nac d*\r\n\n>b\nXBU\n", "f");
  const std::vector<std::uint8_t> expected = {
      0, 1, 2, protein_separator, other_residue, other_residue, other_residue, protein_separator};
  EXPECT_EQ(codes, expected);
}

TEST(PhylogenyFasta, BadLinesNameTheFileAndLine) {
  EXPECT_EQ(input_error([] { parse_fasta(">a\nACD\nAC1D\n", "dir/x.faa.gz"); }),
            "dir/x.faa.gz:3: '1' at column 3 is not an amino-acid letter");
  EXPECT_EQ(input_error([] { parse_fasta("ACD\n>a\nACD\n", "dir/x.faa.gz"); }),
            "dir/x.faa.gz:1: a sequence line before the first '>' header");
  EXPECT_EQ(input_error([] { parse_fasta(">a\nAC\x01\n", "x"); }),
            "x:2: byte 0x01 at column 3 is not an amino-acid letter");
  EXPECT_EQ(input_error([] { parse_fasta(">a\nAC*D\n", "x"); }),
            "x:2: 'D' at column 4 is not an amino-acid letter (the sequence ended with '*')");
  EXPECT_EQ(input_error([] { parse_fasta(">a\n>b\n", "x"); }),
            "x: no protein residues in the file");
  EXPECT_EQ(input_error([] { parse_fasta("", "x"); }), "x: no protein residues in the file");
}

TEST(PhylogenyFasta, TruncatedOrCorruptGzipNamesTheFile) {
  const std::string text = ">a\n" + std::string(5000, 'W') + "\n";
  const std::string packed = gzip(text);
  EXPECT_EQ(gunzip(bytes_of(packed), "ok"), text);

  const std::string truncated = packed.substr(0, packed.size() - 10);
  const std::string message = input_error([&] { gunzip(bytes_of(truncated), "d/a.faa.gz"); });
  EXPECT_EQ(message.rfind("d/a.faa.gz: truncated gzip stream", 0), 0u) << message;

  std::string corrupt = packed;
  corrupt[12] = static_cast<char>(corrupt[12] ^ 0x55);
  corrupt[13] = static_cast<char>(corrupt[13] ^ 0x55);
  const std::string bad = input_error([&] { gunzip(bytes_of(corrupt), "d/b.faa.gz"); });
  EXPECT_EQ(bad.rfind("d/b.faa.gz: ", 0), 0u) << bad;

  EXPECT_EQ(input_error([&] { gunzip(bytes_of(text), "d/c.faa.gz"); }),
            "d/c.faa.gz: not a gzip file");
  EXPECT_EQ(input_error([&] { gunzip({}, "d/e.faa.gz"); }), "d/e.faa.gz: not a gzip file");
}

TEST(PhylogenyFasta, ReadsConcatenatedGzipMembers) {
  const std::string both = gzip(">a\nMK\n") + gzip(">b\nLV\n");
  EXPECT_EQ(gunzip(bytes_of(both), "x"), ">a\nMK\n>b\nLV\n");
}

}  // namespace
}  // namespace strata::apps::phylogeny
