// AMQPClient speaks AMQP's message model; its users get the values with it.
@_exported import AMQPModel
