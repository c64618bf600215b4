# The lab this question grades: instructor/platforms/prairielearn/run reads it from /grade/data/data.json.
def generate(data):
    data["params"]["banklab_lab"] = "05"
