// SleepDiary: an example app that keeps a sleep diary in Salus (see README.md).
print("sleepdiary")
