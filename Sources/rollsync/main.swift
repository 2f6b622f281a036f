import Foundation
import RollSyncCommandLine

exit(await RollSyncMain.run(Array(CommandLine.arguments.dropFirst())))
