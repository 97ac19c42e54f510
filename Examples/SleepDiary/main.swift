// SleepDiary: an example app that keeps a sleep diary in Salus with SalusKit.
//
//   SleepDiary night [--date 2026-11-20] [--time-zone Europe/Paris]
//   SleepDiary follow [--anchor N] [--updates N]
//   SleepDiary add --stage rem [--start 2026-11-21T05:10] [--minutes 20]
//   SleepDiary delete UUID… | --last
//   SleepDiary demo
//
// Every subcommand takes --socket PATH (default: $SALUS_SOCKET, else the daemon's app socket).
import Foundation
import SalusKit


let usage = """
    usage: SleepDiary night [--date YYYY-MM-DD] [--time-zone ZONE]
                             save one night of sleep stages, read back REM, then all asleep values
           SleepDiary follow [--anchor N] [--updates N]
                             follow sleep analysis live (anchored query) until Ctrl-C
           SleepDiary add --stage core|deep|rem|awake|inBed [--start DATE] [--minutes N]
           SleepDiary delete UUID... | --last
           SleepDiary demo   night, then follow while a second process adds and deletes
    every subcommand takes --socket PATH (default: $SALUS_SOCKET, else the default app socket)
    """

var commandLine = CommandLine.arguments.dropFirst()
guard let command = commandLine.popFirst(), !["-h", "--help", "help"].contains(command) else {
    say(usage)
    exit(CommandLine.arguments.count > 1 ? 0 : 2)
}
do {
    let arguments = try Arguments(commandLine)
    switch command {
    case "night": try await Night.run(arguments)
    case "follow": try await Follow.run(arguments)
    case "add": try await Edit.add(arguments)
    case "delete": try await Edit.delete(arguments)
    case "demo": try await Demo.run(arguments)
    default: throw DiaryError("\(command): not a subcommand; expected night, follow, add, delete or demo")
    }
} catch let error as SalusError {
    FileHandle.standardError.write(Data("sleepdiary: \(error.message)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("sleepdiary: \(error)\n".utf8))
    exit(1)
}
