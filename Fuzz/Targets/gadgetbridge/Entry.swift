import SalusFuzzing

// libFuzzer's entry: built only by `make fuzz` (SALUS_FUZZ=1), with -sanitize=fuzzer,address.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.gadgetbridge.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
