#pragma once
// Strata's exception types: every error carries the context a user needs to act on it.

#include <stdexcept>
#include <string>

namespace strata {

// Base of every error Strata throws; the message already names what failed and where.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A setting that is unknown or has a malformed value; names the setting and its source.
class ConfigError : public Error {
 public:
  ConfigError(std::string setting, const std::string& message)
      : Error(message), setting_(std::move(setting)) {}
  const std::string& setting() const { return setting_; }

 private:
  std::string setting_;
};

}  // namespace strata
