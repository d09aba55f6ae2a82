package worldtest

// AgentsYAML is an agent template with two agents: assistant (main) reads
// temperatures and delegates to expert, which schedules services.
const AgentsYAML = `assistant:
  main: true
  system_prompt: You help operators.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 3
  tools:
    read_temperature:
      description: Reads a temperature.
      topic: read_temperature
      parameters:
        type: object
        properties:
          sensor: {type: string}
          unit: {type: string, enum: [C, F]}
        required: [sensor]
    ask_expert:
      description: Asks the maintenance expert.
      delegate: expert
      parameters:
        type: object
        properties:
          question: {type: string}
expert:
  system_prompt: You plan maintenance.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 2
  tools:
    schedule:
      description: Books a service.
      topic: maintenance.schedule
      parameters:
        type: object
        properties:
          days: {type: integer}
`

// RestartTemplate has a table with an entity key (a seed row inserted
// twice is a conflict) and a materialized transform without schedule.
const RestartTemplate = `
data:
  tables:
    - tablename: readings
      maintainLatestFlagFor: [sensor]
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: sensor, dataType: string}
        - {id: temp, dataType: numeric}
  transforms:
    - tablename: per_sensor
      materialize: true
      sql: SELECT sensor, count(*) AS n FROM readings GROUP BY sensor ORDER BY sensor
      columns:
        - {id: sensor, dataType: string}
        - {id: n, dataType: bigint}
`
