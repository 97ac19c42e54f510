"""Saves 1,200 steps for the last hour and prints the sum of the last day (clients/python/README.md).

    salusctl apps add org.example.notebook --name Notebook --read-usage "Charts my steps" --write-usage "Logs steps"
    salusctl apps policy org.example.notebook grant-all
    salusctl launch --app org.example.notebook -- python3 Examples/python/quickstart.py
"""
import datetime as dt, salus
with salus.sync.connect() as store:  # $SALUS_SOCKET, which salusctl launch sets
    store.request_authorization(share=["stepCount"], read=["stepCount"])
    store.save(salus.Sample.quantity("stepCount", 1200, "count", dt.datetime.now() - dt.timedelta(hours=1), dt.datetime.now()))
    print(store.statistics("stepCount", "sum", dt.datetime.now() - dt.timedelta(days=1), dt.datetime.now()).sum)
