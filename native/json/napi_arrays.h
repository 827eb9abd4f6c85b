// Typed arrays passed from JavaScript, checked before native code reads them.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace syncscope::json {

template <class T>
constexpr napi_typedarray_type typedArrayOf() {
  if constexpr (std::is_same_v<T, uint8_t>) return napi_uint8_array;
  if constexpr (std::is_same_v<T, int8_t>) return napi_int8_array;
  if constexpr (std::is_same_v<T, uint32_t>) return napi_uint32_array;
  if constexpr (std::is_same_v<T, int32_t>) return napi_int32_array;
  return napi_float64_array;
}

/** o[key], a typed array of T with at least `length` elements; `caller` names the function in the error. */
template <class T>
T *column(const Napi::Object &o, const char *key, size_t length, const char *caller = "arrange()") {
  Napi::Value v = o.Get(key);
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != typedArrayOf<T>() ||
      v.As<Napi::TypedArray>().ElementLength() < length)
    throw Napi::TypeError::New(o.Env(), std::string(caller) + ": " + key + " is not a typed array of the rows");
  return v.As<Napi::TypedArrayOf<T>>().Data();
}

/** The element count of o[key], a typed array (0 where it is not one). */
inline size_t lengthOf(const Napi::Object &o, const char *key) {
  Napi::Value v = o.Get(key);
  return v.IsTypedArray() ? v.As<Napi::TypedArray>().ElementLength() : 0;
}

}  // namespace syncscope::json
