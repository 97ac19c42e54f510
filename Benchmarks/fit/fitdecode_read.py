"""Reads every FIT file under a folder with fitdecode, the Python peer a person would script:
each data message decoded with its fields' values, as an importer needs them. Prints one JSON
line: files, data messages, records, seconds."""

import json
import os
import sys
import time
import warnings

import fitdecode


def main() -> None:
    folder = sys.argv[1]
    paths = sorted(
        os.path.join(root, name)
        for root, _, names in os.walk(folder)
        for name in names
        if name.lower().endswith(".fit")
    )
    start = time.perf_counter()
    messages = records = failed = 0
    warnings.simplefilter("ignore")
    for path in paths:
        try:
            with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.ENABLED) as reader:
                for frame in reader:
                    if frame.frame_type == fitdecode.FIT_FRAME_DATA:
                        messages += 1
                        if frame.name == "record":
                            records += 1
                        for field in frame.fields:
                            _ = field.value
        except fitdecode.FitError:
            failed += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"files": len(paths), "failed": failed, "messages": messages, "records": records, "seconds": seconds}))


if __name__ == "__main__":
    main()
